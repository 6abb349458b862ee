"""The test fakes themselves: the threaded WSGI server and the fake MTurk submit endpoint."""
from __future__ import annotations

import requests

from tests.fakes.fake_mturk import create_fake_mturk
from tests.fakes.server import serve_wsgi


def test_fake_mturk_records_external_submit():
    app = create_fake_mturk()
    with serve_wsgi(app) as url:
        assert url.startswith("http://127.0.0.1:")
        ok = requests.post(url + "/mturk/externalSubmit", data={"assignmentId": "A1", "ratings": "100"})
        missing = requests.post(url + "/mturk/externalSubmit", data={"ratings": "100"})
    assert ok.status_code == 200 and "HIT submitted" in ok.text
    assert missing.status_code == 400
    ledger = app.config["LEDGER"]
    assert [s.form for s in ledger.submissions] == [{"assignmentId": "A1", "ratings": "100"}]
    assert ledger.submissions_for("A1")[0].assignment_id == "A1"
    assert ledger.submissions_for("A2") == []
