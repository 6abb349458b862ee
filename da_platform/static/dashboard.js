/* Dashboard helpers, no framework (strict CSP: this file is the only script).
 *  - live sections: an element with data-refresh-seconds makes the page fetch itself every N seconds
 *    and swap in the fresh copy of every element marked data-live (by id), unless the researcher is
 *    using something inside it; the rest of the page (and anything typed) stays.
 *  - table.sortable: a click on a column header sorts by that column (numbers numerically, "–" last);
 *    again reverses.
 *  - input[data-filter=TABLE_ID]: shows only the rows of that table containing the text typed.
 */
(function () {
  "use strict";

  function numberOf(text) {
    var cleaned = text.replace(/[\s,%]/g, "");
    if (!/^[-+]?\d/.test(cleaned)) { return NaN; }
    return parseFloat(cleaned);
  }

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  }

  function sortTable(table, index, button) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var th = button.closest("th");
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function (row) {
      var value = cellValue(row, index);
      return value === "" || value === "–" || !isNaN(numberOf(value));
    });
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index), result;
      if (numeric) {
        var nx = numberOf(x), ny = numberOf(y);
        if (isNaN(nx) || isNaN(ny)) { return isNaN(nx) - isNaN(ny); }  /* missing values last */
        result = nx - ny;
      } else {
        result = x.localeCompare(y);
      }
      return ascending ? result : -result;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  function makeSortable(table) {
    if (!table.tHead || table.dataset.sortableReady) { return; }
    table.dataset.sortableReady = "1";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () { sortTable(table, index, button); });
    });
  }

  function applyFilter(input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    if (!table || !table.tBodies[0]) { return; }
    var query = input.value.trim().toLowerCase();
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      row.hidden = query !== "" && row.textContent.toLowerCase().indexOf(query) === -1;
    });
  }

  function enhance(root) {
    Array.prototype.forEach.call(root.querySelectorAll("table.sortable"), makeSortable);
  }

  Array.prototype.forEach.call(document.querySelectorAll("input[data-filter]"), function (input) {
    input.addEventListener("input", function () { applyFilter(input); });
  });
  enhance(document);

  var live = document.querySelector("[data-refresh-seconds]");
  if (!live || !window.fetch || !window.DOMParser) { return; }
  var seconds = Math.max(1, Number(live.getAttribute("data-refresh-seconds")) || 15);

  function refresh() {
    window.fetch(window.location.href, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        Array.prototype.forEach.call(document.querySelectorAll("[data-live]"), function (old) {
          var replacement = fresh.getElementById(old.id);
          if (replacement && !old.contains(document.activeElement)) {
            var node = document.importNode(replacement, true);
            old.replaceWith(node);
            enhance(node);
          }
        });
        var stamp = document.getElementById("live-updated");
        if (stamp) { stamp.textContent = new Date().toLocaleTimeString(); }
        if (!fresh.querySelector("[data-refresh-seconds]")) { return Promise.reject("stopped"); }
      })
      .then(function () { window.setTimeout(refresh, seconds * 1000); },
            function (reason) { if (reason !== "stopped") { window.setTimeout(refresh, seconds * 1000); } });
  }

  window.setTimeout(refresh, seconds * 1000);
}());
