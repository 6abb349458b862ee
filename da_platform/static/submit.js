/* MTurk completion: post the assignment back to MTurk as soon as the page has loaded. */
(function () {
  "use strict";
  var form = document.getElementById("provider-submit");
  if (form) { form.submit(); }
})();
