# Reads a `jpreplay tune export --optuna` file back with the optuna package and prints what
# Optuna sees as one JSON object (Tests/CLITests/TuneExportCLITests); then opens the same file in
# optuna-dashboard (its WSGI app, no server or port) and adds what the dashboard's own API
# serves under "dashboard". Usage:
#   .build/venv/bin/python3 Tests/Fixtures/optuna-readback.py FILE STUDY_NAME
import io
import json
import sys

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend
import optuna_dashboard

storage = JournalStorage(JournalFileBackend(sys.argv[1]))
study = optuna.load_study(study_name=sys.argv[2], storage=storage)
out = {"directions": [d.name for d in study.directions], "trials": []}
for t in study.trials:
    out["trials"].append({
        "number": t.number,
        "state": t.state.name,
        "values": t.values,
        "params": t.params,
        "index": t.user_attrs["jpreplay_trial"],
        "status": t.user_attrs["jpreplay_status"],
        "constraints": t.system_attrs.get("constraints"),
    })
out["best"] = [t.number for t in study.best_trials]


def dashboard_get(app, path, query=""):
    status = {}

    def start_response(s, headers, exc_info=None):
        status["s"] = s

    env = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "localhost",
           "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.input": io.BytesIO(b""),
           "wsgi.errors": sys.stderr, "wsgi.url_scheme": "http"}
    body = b"".join(app(env, start_response))
    if not status["s"].startswith("200"):
        sys.exit(f"optuna-dashboard {path}: {status['s']}")
    return json.loads(body)


app = optuna_dashboard.wsgi(storage)
summaries = dashboard_get(app, "/api/studies")["study_summaries"]
detail = dashboard_get(app, f"/api/studies/{summaries[0]['study_id']}", "after=0")
out["dashboard"] = {
    "studies": [s["study_name"] for s in summaries],
    "directions": detail["directions"],
    "trials": [t["number"] for t in detail["trials"]],
    "states": [t["state"] for t in detail["trials"]],
    "best": sorted(t["number"] for t in detail["best_trials"]),
}
print(json.dumps(out))
