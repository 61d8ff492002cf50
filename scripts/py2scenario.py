#!/usr/bin/env python3
"""Converts the Python corpus tables (SCENARIOS of scripts/corpus_jsonl.py, which include
APP_SCENARIOS of scripts/corpus_app.py) into scenario files, Recordings/<name>.scenario.yaml
(schema: Sources/Scenarios/Scenario.swift), the source `jpreplay record` generates from.

    python3 scripts/py2scenario.py                 # write the missing Recordings/*.scenario.yaml
    python3 scripts/py2scenario.py --force NAME    # rewrite these (hand edits are lost)
    python3 scripts/py2scenario.py --stdout NAME   # print one instead
    python3 scripts/py2scenario.py --check [NAME...] [--jpreplay PATH]

--check proves the conversion in a temporary folder, Recordings/ untouched: the Python writes
its JSONL, `jpreplay record --jsonl` generates from the converted file, and the events and the
header's notes/options/initial must agree. Seeded noise cannot agree (Python's random.gauss
versus SplitMix64), so noisy scenarios are checked with the noise set to 0 on both sides.

How the Python maps onto the schema: the first keyframe is the baseline `subject`; a later
keyframe that changes numbers is a ramp {from, to, subject} when a frame falls strictly
between the two keys, else a step {at, subject} (step() and holds); a per_frame function
(by_frame, by_time, flicker, face_flicker, gate_timeline, lambdas) is evaluated on every frame
and becomes a step wherever its value changes; `px` is `x`, `drop=1` the waist-up joints;
sigma is landmark_sigma with conf_sigma = 2 sigma (the Python drew conf noise as 2 n()).
reference() is a `references` entry (`faces` edits from its faces= function), reload() and
initial.posespec a derivation {from: ../PoseSpec.json, remove: [...], set: {...}}.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import corpus_app as ca  # noqa: E402
import corpus_jsonl as cj  # noqa: E402

WIDTH = 100
POSESPEC = os.path.join(ROOT, "PoseSpec.json")
SPEC_FROM = "../PoseSpec.json"  # relative to Recordings/


# ---------------------------------------------------------------------------------------------
# Capturing the tables: scenario() / write() record their arguments instead of writing files;
# reference() and reload() return markers the converter turns into YAML.

class Ref:
    def __init__(self, t, ref_id, params, drop=(), faces=None, conf=None):
        self.t, self.ref_id, self.params = t, ref_id, dict(params)
        self.drop, self.faces, self.conf = list(drop), faces, dict(conf or {})


class Reload:
    def __init__(self, t, spec):
        self.t, self.spec = t, spec


CAPTURED = {}


def cap_scenario(name, duration_ms, keys, notes, sigma=0.0, seed=1, options=None, scene=cj.RULE_SCENE,
                 per_frame=None, extra=(), luma_every=0, times=None):
    CAPTURED[name] = dict(type="frames", name=name, duration_ms=duration_ms, keys=keys, notes=notes,
                          sigma=sigma, seed=seed,
                          options=dict(cj.RULE_OPTIONS) if options is None else options,
                          scene=scene, per_frame=per_frame, extra=list(extra), luma_every=luma_every,
                          times=times)


def cap_write(name, duration_ms, events, notes, initial=None, options=None):
    CAPTURED[name] = dict(type="app", name=name, duration_ms=duration_ms, events=list(events), notes=notes,
                          initial=initial or {}, options=options or {})


def capture(name):
    saved = (cj.scenario, cj.reference, cj.reload, ca.write)
    cj.scenario, cj.reference, cj.reload, ca.write = (
        cap_scenario, lambda *a, **k: (a[0], Ref(*a, **k)), lambda t, s: (t, Reload(t, s)), cap_write)
    try:
        cj.SCENARIOS[name](name)
    finally:
        cj.scenario, cj.reference, cj.reload, ca.write = saved
    return CAPTURED[name]


# ---------------------------------------------------------------------------------------------
# YAML output (flow style where it fits in WIDTH columns; core-schema scalars).

RESERVED = {"true", "false", "null", "~", "yes", "no", "on", "off", "y", "n", ""}


def scalar(v):
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        assert math.isfinite(v)
        return repr(v)
    assert isinstance(v, str), v
    plain = (v and v.lower() not in RESERVED and (v[0].isalnum() or v[0] == "_")
             and all(c.isalnum() or c in "_-./" for c in v) and v.isascii() and not number_like(v))
    return v if plain else json.dumps(v, ensure_ascii=False)


def number_like(v):
    try:
        float(v)
        return True
    except ValueError:
        return v[0].isdigit() and all(c.isdigit() or c in "-:" for c in v)  # dates, times


def flow(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{scalar(k)}: {flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(flow(x) for x in v) + "]"
    return scalar(v)


def is_collection(v):
    return isinstance(v, (dict, list, tuple))


def wrapped_flow(v, col):
    """A flow collection starting at column `col`, broken after commas so lines stay within
    WIDTH; continuation lines start one column right of the bracket. Items are not split."""
    one = flow(v)
    if col + len(one) <= WIDTH or not is_collection(v):
        return one
    open_, close = ("{", "}") if isinstance(v, dict) else ("[", "]")
    parts = [f"{scalar(k)}: {flow(x)}" for k, x in v.items()] if isinstance(v, dict) else [flow(x) for x in v]
    lines, cur, start = [], open_, col
    for i, p in enumerate(parts):
        piece = p + (", " if i < len(parts) - 1 else close)
        if i > 0 and start + len(cur) + len(piece.rstrip()) > WIDTH:
            lines.append(cur.rstrip())
            cur, start = " " * (col + 1), 0
        cur += piece
    lines.append(cur)
    return "\n".join(lines)


def wrappable(v, col):
    """Whether every item of a collection fits a continuation line (then it is written as one
    wrapped flow collection rather than a block)."""
    parts = [f"{scalar(k)}: {flow(x)}" for k, x in v.items()] if isinstance(v, dict) else [flow(x) for x in v]
    return all(col + 3 + len(p) <= WIDTH for p in parts)


def emit(key, v, indent):
    """`key: value` at `indent` spaces: flow if it fits, wrapped flow for a collection of
    scalars, else a block mapping / list."""
    pad = " " * indent
    head = f"{pad}{scalar(key)}: "
    if len(head) + len(flow(v)) <= WIDTH or not is_collection(v) or wrappable(v, len(head)):
        return [head + wrapped_flow(v, len(head))]
    out = [f"{pad}{scalar(key)}:"]
    if isinstance(v, dict):
        for k, x in v.items():
            out += emit(k, x, indent + 2)
    else:
        for x in v:
            out += emit_item(x, indent + 2)
    return out


def emit_item(v, indent):
    pad = " " * indent
    if indent + 2 + len(flow(v)) <= WIDTH or not isinstance(v, dict) or wrappable(v, indent + 2):
        return [f"{pad}- {wrapped_flow(v, indent + 2)}"]
    out = []
    for k, x in v.items():
        lines = emit(k, x, indent + 2)
        if not out:
            lines[0] = pad + "- " + lines[0][indent + 2:]
        out += lines
    return out


def folded(text, indent=2, width=92):
    """A `>-` block scalar that folds back to exactly `text` (breaks only at single spaces)."""
    assert "\n" not in text and "\t" not in text and text == text.strip(), text
    words = text.split(" ")
    lines, cur = [], words[0]
    for w in words[1:]:
        if w and cur and not cur.endswith(" ") and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur += " " + w
    lines.append(cur)
    assert " ".join(lines) == text and all(l and l[0] != " " and l[-1] != " " for l in lines), text
    return [">-"] + [" " * indent + l for l in lines]


# ---------------------------------------------------------------------------------------------
# Subject parameters.

DISCRETE = {"people", "absent", "no_face", "drop", "left_prec"}


def param(k, v):
    """A Python state entry as (schema key, value)."""
    if k == "px":
        return "x", v
    if k in ("absent", "no_face"):
        return k, bool(v)
    if k == "drop":
        return "drop", list(cj.WAIST_UP) if v else []
    if k == "people":
        return k, int(v)
    return k, v


def patch(params):
    return dict(param(k, v) for k, v in params.items())


def frame_list(c):
    return list(c["times"]) if c["times"] else [t for _, t in cj.frame_times(c["duration_ms"])]


def subject_timeline(c):
    """(baseline patch, [(t, kind, patch)]) for a frame scenario; kind is 'at' or (from, to)."""
    keys, times = c["keys"], frame_list(c)
    base = dict(keys[0][1])
    entries = []
    prev_t, prev = keys[0][0], dict(cj.DEFAULT, **keys[0][1])
    for kt, params in keys[1:]:
        full = dict(prev, **params)
        new = {k: full[k] for k in full if k not in prev}
        changed = {k: full[k] for k in full if k in prev and prev[k] != full[k]}
        inside = [t for t in times if prev_t < t < kt]
        if new:
            at = prev_t if any(prev_t <= t < kt for t in times) else kt
            entries.append((at, "at", new))
        if changed:
            if inside:
                bad = set(changed) & DISCRETE
                assert not bad, f"{c['name']}: {bad} would be interpolated between {prev_t} and {kt}"
                entries.append((prev_t, (prev_t, kt), changed))
            else:
                entries.append((kt, "at", changed))
        prev_t, prev = kt, full
    pf = c["per_frame"]
    if pf:
        key_params = {k for _, p in keys for k in p}
        last = None
        for k, t in enumerate(times):
            s = cj.interp(keys, t)
            o = pf(k, t, s)
            assert not (set(o) & key_params - {"px"} or ("px" in o and any("px" in p for _, p in keys[1:]))), \
                f"{c['name']}: per_frame and keyframes drive the same parameter"
            if last is None:
                base.update(o)
            else:
                d = {p: v for p, v in o.items() if last.get(p) != v}
                if d:
                    entries.append((t, "at", d))
            last = o
    # Merge steps at one time (their parameters are disjoint).
    merged = []
    for e in sorted(entries, key=lambda e: e[0]):
        if merged and e[1] == "at" and merged[-1][1] == "at" and merged[-1][0] == e[0]:
            assert not set(merged[-1][2]) & set(e[2])
            merged[-1][2].update(e[2])
        else:
            merged.append((e[0], e[1], dict(e[2])))
    return patch(base), [(t, kind, patch(p)) for t, kind, p in merged]


# ---------------------------------------------------------------------------------------------
# PoseSpec derivations: the edits that turn PoseSpec.json into a given spec, as paths.

def same(a, b):
    return type(a) is type(b) and a == b if not isinstance(a, (dict, list)) else json.dumps(a) == json.dumps(b)


def spec_diff(a, b, path, sets, removes):
    if same(a, b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                removes.append(f"{path}.{k}" if path else k)
        common = [k for k in b if k in a]
        assert common == [k for k in a if k in b], f"{path}: key order changed"
        for k in b:
            p = f"{path}.{k}" if path else k
            if k in a:
                spec_diff(a[k], b[k], p, sets, removes)
            else:
                sets[p] = b[k]
        return
    if isinstance(a, list) and isinstance(b, list):
        ids = lambda l: [x.get("id") if isinstance(x, dict) else None for x in l]
        if len(a) == len(b) and ids(a) == ids(b) and all(ids(a)) and len(set(ids(a))) == len(a):
            for x, y in zip(a, b):
                spec_diff(x, y, f"{path}[id={x['id']}]", sets, removes)
            return
        if len(b) < len(a) and all(same(x, y) for x, y in zip(a, b)):
            removes.extend([f"{path}[-1]"] * (len(a) - len(b)))
            return
        if len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                spec_diff(x, y, f"{path}[{i}]", sets, removes)
            return
    sets[path] = b


def derivation(spec):
    base = json.load(open(POSESPEC, encoding="utf-8"))
    sets, removes = {}, []
    spec_diff(base, spec, "", sets, removes)
    d = {"from": SPEC_FROM}
    if removes:
        d["remove"] = removes
    if sets:
        d["set"] = sets
    assert same(apply_derivation(base, d), spec), "the derivation does not rebuild the spec"
    return d


def resolve(doc, path):
    """(container, key) of a path: `a.b`, `a[2]`, `a[-1]`, `cues[id=X].trigger`."""
    parts = []
    for seg in path.split("."):
        name, _, rest = seg.partition("[")
        if name:
            parts.append(name)
        while rest:
            sel, _, rest = rest.partition("]")
            parts.append(("sel", sel))
            rest = rest[1:] if rest.startswith("[") else rest
    node = doc
    for i, p in enumerate(parts):
        key = p
        if isinstance(p, tuple):
            sel = p[1]
            if "=" in sel:
                f, v = sel.split("=", 1)
                key = next(j for j, x in enumerate(node) if isinstance(x, dict) and str(x.get(f)) == v)
            else:
                key = int(sel) % len(node)
        if i == len(parts) - 1:
            return node, key
        node = node[key]


def apply_derivation(base, d):
    """The Python model of the Swift expansion: `remove` first, then `set`, each in order."""
    doc = json.loads(json.dumps(base))
    for p in d.get("remove", []):
        node, key = resolve(doc, p)
        del node[key]
    for p, v in d.get("set", {}).items():
        node, key = resolve(doc, p)
        node[key] = v
    return doc


# ---------------------------------------------------------------------------------------------
# References.

def face_edits(face, out):
    """The edit of the generated face `face` that gives `out` (mappings merge, values replace)."""
    e = {}
    for k, v in out.items():
        if k in face and isinstance(v, dict) and isinstance(face[k], dict):
            sub = face_edits(face[k], v)
            assert list(v) == list(face[k]) + [x for x in v if x not in face[k]]
            if sub:
                e[k] = sub
        elif k not in face or not same(face[k], v):
            e[k] = v
    assert list(out) == list(face) + [x for x in out if x not in face]
    return e


def reference_entry(r):
    e = {"at": r.t, "ref_id": r.ref_id}
    p = patch(r.params)
    if p:
        e["subject"] = p
    if r.drop:
        e["drop"] = list(r.drop)
    if r.conf:
        e["conf"] = dict(r.conf)
    if r.faces is not None:
        s = dict(cj.DEFAULT, **r.params)
        _, face = cj.body_and_face(s, __import__("random").Random(0), 0.0)
        e["faces"] = [face_edits(face, f) for f in r.faces(face)]
    return e


# ---------------------------------------------------------------------------------------------
# The scenario file.

def event_entry(ev):
    assert ev["kind"] not in ("landmarks", "luma")
    body = {k: v for k, v in ev.items() if k != "t"}
    if ev["kind"] == "posespec_reload":
        body = {"kind": "posespec_reload", "spec": derivation(ev["spec"])}
    return {"at": ev["t"], "event": body}


def timeline_lines(entries):
    out = ["timeline:"]
    for e in entries:
        if "event" in e and len(flow(e)) + 4 > WIDTH:
            out.append(f"  - at: {e['at']}")
            out += emit("event", e["event"], 4)
        else:
            out += emit_item(e, 2)
    return out


def header_lines(c, source, extra_comments=()):
    out = [f'# Was {source} "{c["name"]}" (converted by scripts/py2scenario.py);',
           f"# this file is the source now. Regenerate: jpreplay record {c['name']}"]
    out += [f"# {l}" for l in extra_comments]
    return out


def frames_scenario(c):
    base, steps = subject_timeline(c)
    times = frame_list(c)
    comments = []
    if c["sigma"]:
        comments.append(f"Noise: the Python's sigma={c['sigma']!r} (conf noise 2 sigma); SplitMix64 draws")
        comments.append("other values than Python's random.gauss, so the frames are not the Python's.")
    out = header_lines(c, "scripts/corpus_jsonl.py", comments)
    out += [f"name: {c['name']}", f"scene: {c['scene']}", f"fps: {cj.FPS}", f"duration_ms: {c['duration_ms']}",
            f"seed: {c['seed']}"]
    if c["options"]:
        out.append("options: " + flow(c["options"]))
    out += emit("initial", {"camera_auth": "authorized", "voiceover": False, "thermal": "nominal",
                            "camera_facing": "back"}, 0)
    out += ["notes: " + folded(c["notes"])[0]] + folded(c["notes"])[1:]
    if base:
        out += emit("subject", base, 0)
    if c["times"]:
        step = times[1] - times[0] if len(times) > 1 else 0
        if times[0] == 0 and step > 0 and times == list(range(0, c["duration_ms"] + 1, step)):
            out.append(f"frames: {{every_ms: {step}}}")
        else:
            out += emit("frames", {"times": times}, 0)
    if c["luma_every"]:
        out.append(f"luma: {{every: {c['luma_every']}}}")
    if c["sigma"]:
        out.append(f"noise: {{landmark_sigma: {c['sigma']!r}, conf_sigma: {2 * c['sigma']!r}}}")
    timeline = []
    for t, kind, p in steps:
        timeline.append({"at": t, "subject": p} if kind == "at" else {"from": kind[0], "to": kind[1], "subject": p})
    refs = []
    extra = sorted(c["extra"], key=lambda e: e[0])
    for i, (t, e) in enumerate(extra):
        if isinstance(e, Ref):
            refs.append(reference_entry(e))
            # A reference comes after every timeline event at its time (generator order).
            assert all(not (t2 == t and not isinstance(e2, Ref)) for t2, e2 in extra[i + 1:]), c["name"]
        elif isinstance(e, Reload):
            timeline.append(event_entry({"t": t, "kind": "posespec_reload", "spec": e.spec}))
        else:
            timeline.append(event_entry(e))
    # Subject steps do not produce events: their order against events does not matter, but
    # keep the file in time order (stable).
    timeline.sort(key=lambda e: e.get("at", e.get("from")))
    if timeline:
        out += timeline_lines(timeline)
    if refs:
        out.append("references:")
        for r in refs:
            out += emit_item(r, 2)
    return out


def app_scenario(c):
    init = {"scene": "cafe", "camera_auth": "authorized", "voiceover": False, "thermal": "nominal",
            "camera_facing": "back", "photo_auth": {"status": "authorized", "scope": "full"}, "free_mb": 20000}
    init.update(c["initial"])
    scene = init.pop("scene")
    if "posespec" in init:
        init["posespec"] = derivation(init["posespec"])
    events = sorted(c["events"], key=lambda e: e[0])
    frames = [e for _, e in events if e["kind"] == "landmarks"]
    others = [e for _, e in events if e["kind"] != "landmarks"]
    out = header_lines(c, "scripts/corpus_app.py")
    out += [f"name: {c['name']}", f"scene: {scene}", f"duration_ms: {c['duration_ms']}", "seed: 1"]
    if c["options"]:
        out.append("options: " + flow(c["options"]))
    out += emit("initial", init, 0)
    out += ["notes: " + folded(c["notes"])[0]] + folded(c["notes"])[1:]
    if frames:
        out += app_frames(frames)
    else:
        out.append("frames: none")
    if others:
        out += timeline_lines([event_entry(e) for e in others])
    return out


def app_frames(frames):
    """corpus_app.frames(): a bare body (7 joints, no face) right of centre."""
    px = frames[0]["body"]["nose"][0]
    expected = ca.frames([f["t"] for f in frames], px=px)
    assert [e for _, e in expected] == frames, "unexpected app frames"
    keep = set(frames[0]["body"])
    drop = [j for j in cj.JOINTS if j not in keep]
    out = ["# corpus_app.frames(): the subject's bare body (7 joints, no face) right of centre."]
    out += emit("subject", {"x": px, "no_face": True, "drop": drop}, 0)
    out += emit("frames", {"times": [f["t"] for f in frames]}, 0)
    return out


def convert(name):
    c = capture(name)
    lines = frames_scenario(c) if c["type"] == "frames" else app_scenario(c)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# --check

def close(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(a - b) <= 1e-9
    return a == b


def check(names, jpreplay):
    tmp = tempfile.mkdtemp(prefix="py2scenario-")
    try:
        shutil.copy(POSESPEC, os.path.join(tmp, "PoseSpec.json"))
        rec = os.path.join(tmp, "Recordings")
        os.makedirs(rec)
        cj.set_out_dir(os.path.join(tmp, "python"))
        real = cj.scenario
        failures = 0
        for name in names:
            c = capture(name)
            noisy = c["type"] == "frames" and c["sigma"] > 0
            text = convert(name)
            if noisy:
                text = "\n".join(l for l in text.split("\n") if not l.startswith("noise:"))
            path = os.path.join(rec, name + ".scenario.yaml")
            open(path, "w", encoding="utf-8").write(text)
            cj.scenario = (lambda *a, **k: real(*a, **dict(k, sigma=0.0))) if noisy else real
            try:
                with open(os.devnull, "w") as devnull:
                    stdout, sys.stdout = sys.stdout, devnull
                    try:
                        cj.SCENARIOS[name](name)
                    finally:
                        sys.stdout = stdout
            finally:
                cj.scenario = real
            py = open(os.path.join(tmp, "python", name + ".jsonl"), encoding="utf-8").read().splitlines()
            r = subprocess.run([jpreplay, "record", path, "--jsonl"], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: jpreplay record: {r.stderr.strip()}")
                failures += 1
                continue
            sw = r.stdout.splitlines()
            h1, h2 = json.loads(py[0]), json.loads(sw[0])
            problems = [f"header {k}" for k in ("notes", "options", "initial", "duration_ms", "wall_start_ms")
                        if not close(h1.get(k, {} if k == "options" else None), h2.get(k))]
            status = "identical events"
            if len(py) != len(sw):
                problems.append(f"{len(py) - 1} Python events, {len(sw) - 1} generated")
            else:
                for i, (a, b) in enumerate(zip(py[1:], sw[1:]), 2):
                    if a == b:
                        continue
                    if close(json.loads(a), json.loads(b)):
                        status = "events equal as JSON (number text differs, e.g. 24.0 vs 24)"
                        continue
                    problems.append(f"event line {i} differs:\n    python {a[:300]}\n    record {b[:300]}")
                    break
            if problems:
                failures += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                print(f"ok   {name}: {status}{' (noise set to 0 on both sides)' if noisy else ''}")
        return failures
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--force", action="store_true", help="overwrite existing scenario files")
    ap.add_argument("--stdout", action="store_true", help="print instead of writing")
    ap.add_argument("--check", action="store_true", help="compare with the Python output (temp dir)")
    ap.add_argument("--jpreplay", default=os.environ.get("JPREPLAY", os.path.join(ROOT, ".build/release/jpreplay")))
    a = ap.parse_args()
    names = a.names or list(cj.SCENARIOS)
    for n in names:
        if n not in cj.SCENARIOS:
            sys.exit(f"unknown scenario '{n}'; known: {', '.join(cj.SCENARIOS)}")
    if a.check:
        sys.exit(1 if check(names, a.jpreplay) else 0)
    for n in names:
        text = convert(n)
        if a.stdout:
            sys.stdout.write(text)
            continue
        path = os.path.join(ROOT, "Recordings", n + ".scenario.yaml")
        if os.path.exists(path) and not a.force:
            print(f"kept {os.path.relpath(path, ROOT)} (exists; --force rewrites it)")
            continue
        open(path, "w", encoding="utf-8").write(text)
        print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
