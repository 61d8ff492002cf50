# Reads a `jpreplay tune export --optuna` file back with the optuna package and prints what
# Optuna sees as one JSON object (Tests/CLITests/TuneExportCLITests). Usage:
#   .build/venv/bin/python3 Tests/Fixtures/optuna-readback.py FILE STUDY_NAME
import json
import sys

import optuna
from optuna.storages import JournalStorage
from optuna.storages.journal import JournalFileBackend

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
print(json.dumps(out))
