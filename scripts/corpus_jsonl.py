#!/usr/bin/env python3
"""An example of writing recordings from Python (docs/FORMAT.md "Writing recordings from
Python"): a parametric subject animated by keyframes (linear ramps between them), seeded
landmark noise, and input events, written as JSONL interchange files.

This script is no longer the source of the committed corpus: Recordings/<name>.scenario.yaml
are (`jpreplay record --all`). scripts/py2scenario.py converted the SCENARIOS table below (and
APP_SCENARIOS of scripts/corpus_app.py) into those files; the table is kept as the worked
example and as the converter's input.

    python3 scripts/corpus_jsonl.py                  # every scenario, into a new temp dir
    python3 scripts/corpus_jsonl.py -o DIR NAME...   # only these, into DIR

Then `jpreplay import DIR/NAME.jsonl -o NAME.jprec` and `jpreplay replay NAME.jprec`.
"""
import base64
import hashlib
import math
import json
import os
import random
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WALL_START_MS = 1_770_860_000_000  # 2026-02-12T01:20:00Z, an arbitrary fixed anchor
FPS = 15
# Where scenario() and corpus_app.write() put the JSONL files: set_out_dir() (the -o argument).
OUT_DIR = None


def set_out_dir(path):
    global OUT_DIR
    import corpus_app
    os.makedirs(path, exist_ok=True)
    OUT_DIR = corpus_app.OUT_DIR = path

JOINTS = ["nose", "neck", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow",
          "leftWrist", "rightWrist", "root", "leftHip", "rightHip", "leftKnee", "rightKnee",
          "leftAnkle", "rightAnkle", "leftEye", "rightEye", "leftEar", "rightEar"]

# A standing, camera-facing subject. x = centre line px; y values canonical (y-down).
# Body left/right are the subject's own sides: leftShoulder is at image RIGHT (ENGINE §2.6).
DEFAULT = dict(px=0.5, top=0.30, hip=0.66, ankle=0.90, nose=0.22, half=0.075, conf=0.9,
               bg_luma=0.5, face_luma=0.5, face_half_diff=0.08, face_w=0.1, face_h=0.13, chin_gap=0.06)


# Subject poses used by several scenarios.
GOOD = dict(top=0.30, hip=0.66, ankle=0.90, nose=0.22, half=0.075)  # bboxHeight 0.60
FAR = dict(top=0.36, hip=0.52, ankle=0.66, nose=0.31, half=0.05)    # bboxHeight 0.30
# ENGINE §7 S44: lS (0.60, 0.40), rS (0.45, 0.40); hips below, feet in frame.
S44 = dict(px=0.525, top=0.40, hip=0.70, ankle=0.95, nose=0.32, half=0.075)


def frame_times(duration_ms):
    k = 0
    while True:
        t = round(k * 1000 / FPS)
        if t > duration_ms:
            return
        yield k, t
        k += 1


def interp(keys, t):
    """keys: [(t_ms, {param: value})]; linear ramps between keyframes, hold after the last."""
    state = dict(DEFAULT)
    prev_t, prev = None, None
    for kt, params in keys:
        full = dict(prev or DEFAULT)
        full.update(params)
        if t < kt and prev is not None:
            a = (t - prev_t) / (kt - prev_t)
            return {k: prev.get(k, full[k]) + (full[k] - prev.get(k, full[k])) * a for k in full}
        prev_t, prev = kt, full
    state.update(prev or {})
    return state


def r6(v):
    return round(v, 6)


def body_and_face(s, rng, sigma):
    n = lambda: rng.gauss(0.0, sigma) if sigma > 0 else 0.0
    px, top, hip, ankle, half = s["px"], s["top"], s["hip"], s["ankle"], s["half"]
    knee = hip + (ankle - hip) * 0.5
    elbow = top + (hip - top) * 0.45
    wrist = top + (hip - top) * 0.85
    pts = {
        "nose": (px, s["nose"]), "neck": (px, top - 0.01),
        # shoulder_tilt: the subject's left shoulder (image right) that much lower.
        "leftShoulder": (px + half, top + s.get("shoulder_tilt", 0.0)), "rightShoulder": (px - half, top),
        "leftElbow": (px + half + 0.02, elbow), "rightElbow": (px - half - 0.02, elbow),
        "leftWrist": (px + half + 0.01, wrist), "rightWrist": (px - half - 0.01, wrist),
        "root": (px, hip), "leftHip": (px + half * 0.7, hip), "rightHip": (px - half * 0.7, hip),
        "leftKnee": (px + half * 0.6, knee), "rightKnee": (px - half * 0.6, knee),
        # Weight on one leg (ankleMid 0.03 left of hipMid): a symmetric stance is WEIGHT_SHIFT warn.
        "leftAnkle": (px + half * 0.55 - 0.03, ankle), "rightAnkle": (px - half * 0.55 - 0.03, ankle),
        "leftEye": (px + 0.015, s["nose"] - 0.015), "rightEye": (px - 0.015, s["nose"] - 0.015),
        "leftEar": (px + 0.03, s["nose"] - 0.01), "rightEar": (px - 0.03, s["nose"] - 0.01),
    }
    body = {}
    for j in JOINTS:
        x, y = pts[j]
        c = min(1.0, max(0.0, s["conf"] + n() * 2))
        body[j] = [r6(x + n()), r6(y + n()), r6(c)]
    fy = s["nose"] - 0.06
    # Eye line tilt (degrees, image y-down): the right eye lower by tan(tilt) * 0.04.
    tilt = math.tan(math.radians(s.get("eye_tilt", 0.0))) * 0.04
    face = {
        "bbox": [r6(v) for v in face_rect(s)], "conf": 0.95,
        # Face landmarks are image-relative (ENGINE §2.6): left_eye is at image left.
        "left_eye": {"x": r6(px - 0.02), "y": r6(s["nose"] - 0.015)},
        "right_eye": {"x": r6(px + 0.02), "y": r6(s["nose"] - 0.015 + tilt)},
        "nose_tip": {"x": r6(px), "y": r6(s["nose"] + 0.01)},
        # nose-to-chin (chin_gap - 0.01) / face_h: 0.05 / 0.13 = 0.385 by default, inside CHIN_*'s
        # exit band [0.36, 0.42].
        "chin": {"x": r6(px), "y": r6(s["nose"] + s["chin_gap"])},
        "mouth": {"x": r6(px), "y": r6(s["nose"] + 0.035)},
    }
    if s.get("eye_conf"):
        # Confident eyes (ENGINE §2.7 keep rule): a recorded confidence, and optionally a
        # precision estimate (worst point) that may fail the 0.012 gate.
        face["left_eye"]["conf"] = face["right_eye"]["conf"] = s["eye_conf"]
        if "left_prec" in s:
            face["left_eye"]["prec_max"] = s["left_prec"]
    return body, face


def face_rect(s):
    """The face bbox the generator records for subject state s: [x, y, w, h]."""
    return [s["px"] - s["face_w"] / 2, s["nose"] - 0.06, s["face_w"], s["face_h"]]


def luma_event(t, k, s, w=90, h=160):
    """An 8-bit luma plane (ENGINE §1.5, §2.11): background s["bg_luma"], the padded face
    ROI (bbox ± 15 %, §2.7) painted with s["face_luma"] (left half s["face_luma"] - d, right
    half + d, d = s["face_half_diff"] / 2), so meanLuma(faceROI) is the face value."""
    def v(x):
        return max(0, min(255, round(x * 255)))
    buf = bytearray([v(s["bg_luma"])] * (w * h))
    fx, fy, fw, fh = face_rect(s)
    x0, y0, x1, y1 = fx - 0.15 * fw, fy - 0.15 * fh, fx + 1.15 * fw, fy + 1.15 * fh
    d = s.get("face_half_diff", 0.0) / 2
    mid = (x0 + x1) / 2
    for py in range(max(0, math.floor(y0 * h)), min(h, math.ceil(y1 * h))):
        for px in range(max(0, math.floor(x0 * w)), min(w, math.ceil(x1 * w))):
            left = (px + 0.5) / w < mid
            buf[py * w + px] = v(s["face_luma"] + (-d if left else d))
    return (t, {"t": t, "kind": "luma", "frame": k, "w": w, "h": h, "enc": "u8-b64",
                "data": base64.b64encode(bytes(buf)).decode("ascii")})


# The rule-level scenarios (composition, gate, praise) replay with angleFix=on in the outdoor
# scene: their subject is camera-facing and upright, whose literal shoulder/hip/torso angles
# are ±180° (ENGINE §8 G-5, G-6) and would show SHOULDER_LEVEL / TORSO over the rule under
# test, and in cafe CAFE_12 (thirds) fires for every framing FRAME_MOVE_LEFT/RIGHT accept
# (G-51). The literal default is shown by its own recordings (s44-line-angle-literal, ...).
RULE_OPTIONS = {"angleFix": "on"}
RULE_SCENE = "outdoor"


def scenario(name, duration_ms, keys, notes, sigma=0.0, seed=1, options=None, scene=RULE_SCENE,
             per_frame=None, extra=(), luma_every=0, times=None):
    rng = random.Random(seed)
    options = dict(RULE_OPTIONS) if options is None else options
    spec = open(os.path.join(ROOT, "PoseSpec.json"), "rb").read()
    header = {
        "format": "jp-replay/1", "name": name, "wall_start_ms": WALL_START_MS,
        "posespec_sha256": hashlib.sha256(spec).hexdigest(), "options": options,
        "initial": {"scene": scene, "camera_auth": "authorized", "voiceover": False,
                    "thermal": "nominal", "camera_facing": "back"},
        "fps": FPS, "seed": seed, "duration_ms": duration_ms,
        "generator": "scripts/corpus_jsonl.py", "notes": notes,
    }
    lines = [header]
    events = []
    for k, t in (enumerate(times) if times else frame_times(duration_ms)):
        s = interp(keys, t)
        if per_frame:
            s.update(per_frame(k, t, s))
        if s.get("absent"):
            # Vision found nobody in this frame: no body observation, no face.
            body, faces, people = None, [], 0
        else:
            body, face = body_and_face(s, rng, sigma)
            if s.get("drop"):
                for j in WAIST_UP:
                    body.pop(j, None)
            faces, people = ([] if s.get("no_face") else [face]), int(s.get("people", 1))
        if luma_every and k % luma_every == 0:
            events.append(luma_event(t, k, s))
        events.append((t, {"t": t, "kind": "landmarks", "frame": k, "src_t": t,
                           "image": {"w": 1080, "h": 1920}, "coords": "canonical",
                           "body": body, "faces": faces, "people": people}))
    events.extend(extra)
    events.sort(key=lambda e: e[0])  # stable: extra events after frames at the same t
    lines += [e for _, e in events]
    path = os.path.join(OUT_DIR, name + ".jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for obj in lines:
            f.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(lines) - 1} events)")


def flicker(k, t, s):
    # ENGINE §3.9 second worked timeline, through the pipeline: subject right of centre
    # (FRAME_MOVE_LEFT hard) on even frames 0-9 and nobody on odd ones, then steady.
    return {"px": 0.65, "absent": 1 if (k < 10 and k % 2 == 1) else 0}


def gate_timeline(k, t, s):
    # ENGINE §3.9 second worked timeline, in full: A/nil alternating on frames 0-9, A steady
    # from frame 10, nothing to say from frame 21 (t=1400), A again from t=4000.
    if k < 10:
        return {"px": 0.65, "absent": 1 if k % 2 == 1 else 0}
    if k < 21 or t >= 4000:
        return {"px": 0.65, "absent": 0}
    return {"px": 0.5, "absent": 0}


def by_frame(*segments):
    """per_frame function from [(first_frame, px)] segments: px from that frame on."""
    def f(k, t, s):
        px = segments[0][1]
        for first, v in segments:
            if k >= first:
                px = v
        return {"px": px}
    return f


def by_time(*segments):
    """per_frame function from [(t_ms, px)] segments: px from that time on."""
    def f(k, t, s):
        px = segments[0][1]
        for first, v in segments:
            if t >= first:
                px = v
        return {"px": px}
    return f


def face_flicker(k, t, s):
    # ENGINE §7 S05b: the face (eye line 15 deg) on even frames 0-9, no face on odd ones.
    return {"no_face": 1 if (k < 10 and k % 2 == 1) else 0}


def step(t, before, after):
    """Keyframes that switch from `before` to `after` at t (held before, no ramp)."""
    return [(0, before), (t - 1, before), (t, after)]


def event(t, kind, **fields):
    return (t, dict({"t": t, "kind": kind}, **fields))


# A subject at x = 0.4315: the one framing that keeps CAFE_12 (thirds) and FRAME_MOVE_* quiet
# together in cafe (ENGINE §8 G-51).
CAFE_X = 0.4315


def reference(t, ref_id, params, drop=(), faces=None, conf=None):
    """A `ref_analysis` event (ENGINE §1.5): the reference photo's landmarks, generated from
    subject state `params` without noise; `drop` removes body joints (e.g. a waist-up photo),
    `faces` replaces the face list."""
    s = dict(DEFAULT)
    s.update(params)
    body, face = body_and_face(s, random.Random(0), 0.0)
    for j in drop:
        body.pop(j, None)
    for j, c in (conf or {}).items():
        body[j][2] = c
    ev = {"t": t, "kind": "ref_analysis", "ref_id": ref_id, "coords": "canonical", "body": body,
          "faces": [face] if faces is None else faces(face), "people": 1}
    return (t, ev)


# withRef scenarios: a reference-sized face (w 0.14 > the 0.12 gate, §3.14) with confident
# eyes, torso box centred at (0.5, 0.52) so the reference's centerX/YOffset targets are 0.
REF = dict(px=0.5, top=0.37, hip=0.67, ankle=0.92, nose=0.25, face_w=0.14, face_h=0.18,
           chin_gap=0.08, eye_conf=0.9)
WAIST_UP = ["leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle", "root"]


def pre_hotreload_spec():
    """This repository's PoseSpec as it was before the v1.1.4-final-hotreload entry (ENGINE §7
    S18, MEMO m6.19 Phase 3): CHIN_DOWN / CHIN_UP still carry withRef thresholds
    (noseToChinRatio - target.noseToChinRatio, PRD §D.1 values) and the last changeLog entry
    is v1.1.4-final, so the decider fingerprint is v1.1.4|v1.1.4-final|cues=50."""
    spec = json.load(open(os.path.join(ROOT, "PoseSpec.json"), encoding="utf-8"))
    spec["changeLog"] = spec["changeLog"][:-1]
    for cue in spec["cues"]:
        if cue["id"] == "CHIN_DOWN":
            cue["trigger"]["withRef"] = {"error": "noseToChinRatio - target.noseToChinRatio",
                                         "warn": {"<": -0.02}, "hard": {"<": -0.04},
                                         "exit": {"between": [0.36, 0.42]}}
        if cue["id"] == "CHIN_UP":
            cue["trigger"]["withRef"] = {"error": "noseToChinRatio - target.noseToChinRatio",
                                         "warn": {">": 0.02}, "hard": {">": 0.04},
                                         "exit": {"between": [0.36, 0.42]}}
    return spec


def reload(t, spec):
    text = json.dumps(spec, ensure_ascii=False, separators=(",", ":"))
    return (t, {"t": t, "kind": "posespec_reload",
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "spec": spec})


def tap(t):
    return (t, {"t": t, "kind": "shutter_tap"})


def REJECTS(t1, t2, t3, t4):
    """The four §3.14 gate failures of ENGINE §7 S23, at these times."""
    return (reference(t1, "ref-two-faces", REF, faces=lambda f: [dict(f, conf=0.7), dict(f, conf=0.7, bbox=[0.1, 0.1, 0.14, 0.18])]),
            reference(t2, "ref-small-face", dict(REF, face_w=0.10)),
            reference(t3, "ref-eye", REF, faces=lambda f: [dict(f, left_eye=dict(f["left_eye"], conf=0.3))]),
            reference(t4, "ref-shoulder", REF, conf={"rightShoulder": 0.4}))


def app_shot(t, n):
    from corpus_app import shot
    return [e for e in shot(t, n)]


SCENARIOS = {
    "drift-left-and-back": lambda n: scenario(
        n, 12000, [(0, {}), (2000, {}), (3000, {"px": 0.66}), (7000, {"px": 0.66}), (8000, {"px": 0.5})],
        "Subject drifts right of centre (warn, then hard FRAME_MOVE_LEFT), then comes back: "
        "exit after persistFrames, the gate holds 3 s, then clears (§3.5, §3.9).",
        sigma=0.003, seed=7),
    "near-threshold-jitter": lambda n: scenario(
        n, 10000, [(0, {"px": 0.5 + 0.068})],
        "centerXOffset hovers at the FRAME_MOVE_LEFT warn boundary (0.07) with noise: the cue "
        "enters on a warn sample and the dead-band (0.04, 0.07] keeps it active (§3.3, §3.5).",
        sigma=0.006, seed=11),
    "flicker-suppression": lambda n: scenario(
        n, 2000, [(0, {})],
        "ENGINE §3.9 15 Hz timeline through the pipeline: FRAME_MOVE_LEFT on even frames 0-9, "
        "nobody on odd ones (the cue goes unavailable, its fallback FRAME_GENERAL is requested, "
        "§3.4), then steady from frame 10 (t=667): the gate input never holds 4 frames until "
        "then, so FRAME_MOVE_LEFT is first shown at frame 13 (t=867).",
        per_frame=flicker),
    "gate-timeline-15hz": lambda n: scenario(
        n, 6000, [(0, {})],
        "ENGINE §3.9 second worked timeline through the whole pipeline (15 Hz, persistFrames 4, "
        "minHold 3000, cooldown 800): FRAME_MOVE_LEFT alternating with nobody on frames 0-9, "
        "steady from frame 10 -> shown at 867; centred from frame 21 (t=1400) -> hold until "
        "nil at 3867 (867+3000; FRAME_MOVE_LEFT cooldown until 4667); right of centre again "
        "from t=4000 -> cooldown -> FRAME_MOVE_LEFT again at 4667.",
        per_frame=gate_timeline),
    "s06-hold-and-cooldown": lambda n: scenario(
        n, 7000, [(0, {})],
        "ENGINE §7 S06: cx=+0.15 frames 0-20, cx=0 frames 21-53, cx=+0.15 from frame 54 (t=3600). "
        "LEFT hard at 200; exit_crossed + praise on FRAME_X at 1600 (4th exit frame) while the gate "
        "holds LEFT; null at 3200 (200+3000; LEFT cooldown until 4000); cooldown 3600-3933; LEFT "
        "hard at 4000; praise off (timeout) at 6600.",
        per_frame=by_frame((0, 0.65), (21, 0.5), (54, 0.65))),
    "s07-dead-band": lambda n: scenario(
        n, 5000, [(0, {})],
        "ENGINE §7 S07: LEFT active (cx 0.15) for 10 frames, then cx=0.06 for 60 frames: inside "
        "the dead-band (0.04, 0.07] the cue stays active with its sticky level hard: still "
        "displayed, no exit_crossed, no praise (§3.3, §3.5).",
        per_frame=by_frame((0, 0.65), (10, 0.56))),
    "s08-praise-freeze": lambda n: scenario(
        n, 11000, [(0, {})],
        "ENGINE §7 S08: LEFT displayed (cx 0.15 from t=0); cx -> 0.02 from t=5000: exit_crossed at "
        "the 4th exit frame (t=5200), praise on FRAME_X, card frozen on the praise script, praise "
        "off (timeout) 5000 ms later at 10200, then the card of the displayed cue.",
        per_frame=by_time((0, 0.65), (5000, 0.52))),
    "s09-praise-cooldown": lambda n: scenario(
        n, 16000,
        [(0, {"nose": 0.22}), (7466, {"nose": 0.22}), (7467, {"nose": 0.22, "top": 0.16, "hip": 0.52, "ankle": 0.76}),
         (8466, {"nose": 0.22, "top": 0.16, "hip": 0.52, "ankle": 0.76}),
         (8467, {"nose": 0.22, "top": 0.30, "hip": 0.66, "ankle": 0.90})],
        "ENGINE §7 S09: two FRAME_X exits 6 s apart (LEFT shown, exits at 1533; LEFT again, exits "
        "at 7533 while still shown: no praise, 6000 < 10000), then a FRAME_Y exit about 1 s later "
        "(the subject stands high from 7467: FRAME_MOVE_DOWN shown at 7667, back at 8467, exits "
        "at 8667): praised.",
        per_frame=by_time((0, 0.65), (1333, 0.5), (4000, 0.65), (7333, 0.5))),
    "s10-shutter-unfreeze": lambda n: scenario(
        n, 8000, [(0, {})],
        "ENGINE §7 S10: praise on at 1600 (as S06); shutter_tap at 2800 (+1200): praise off "
        "(shutter_tap) at 2800 and the card of the displayed cue returns, then the item is "
        "captured_preview (§5.5) and saved (photo data +180, write +420); no timeout later.",
        per_frame=by_frame((0, 0.65), (21, 0.5)), extra=tuple(app_shot(2800, 1))),
    "step-too-close": lambda n: scenario(
        n, 14000,
        [(0, {"top": 0.36, "hip": 0.52, "ankle": 0.66, "nose": 0.31, "half": 0.05}),
         (3000, {"top": 0.36, "hip": 0.52, "ankle": 0.66, "nose": 0.31, "half": 0.05}),
         (6000, {"top": 0.30, "hip": 0.66, "ankle": 0.90, "nose": 0.22, "half": 0.075}),
         (8000, {"top": 0.30, "hip": 0.66, "ankle": 0.90, "nose": 0.22, "half": 0.075}),
         (11000, {"top": 0.04, "hip": 0.50, "ankle": 0.985, "nose": 0.02, "half": 0.11})],
        "Subject far away (bboxHeight 0.30: DIST_STEP_CLOSER), walks to a good distance, then "
        "too close (bboxHeight 0.945: DIST_STEP_BACK warn); FRAME_MOVE_* may outrank it (§8 G-49).",
        sigma=0.002, seed=3),
    "feet-cropped": lambda n: scenario(
        n, 12000,
        [(0, FAR), (2000, FAR), (4000, GOOD), (6000, GOOD),
         (7000, {"top": 0.24, "hip": 0.66, "ankle": 1.04, "nose": 0.15})],
        "Far subject (DIST_STEP_CLOSER, rightly), walks to a good distance (cleared), then steps "
        "forward until the ankles leave the frame (y > 1 → dropped, §2.4). Literal behaviour "
        "(default options): FRAME_DONT_CROP_FEET never fires (§8 G-48) and DIST_STEP_CLOSER "
        "fires again on a shoulders-only bbox (§8 G-49). Compare feet-cropped-all-listed.",
        sigma=0.002, seed=5),
    "feet-cropped-all-listed": lambda n: scenario(
        n, 12000,
        [(0, FAR), (2000, FAR), (4000, GOOD), (6000, GOOD),
         (7000, {"top": 0.24, "hip": 0.66, "ankle": 1.04, "nose": 0.15})],
        "Same events as feet-cropped, replayed with bboxRequiresAllListed=true (the documented "
        "option of §8 G-49): once the ankles are dropped DIST_* are unavailable instead of "
        "advising the wrong way, so nothing is shown after the crop.",
        sigma=0.002, seed=5, options=dict(RULE_OPTIONS, bboxRequiresAllListed="true")),
    "s05-head-level-flicker": lambda n: scenario(
        n, 1500, [(0, {"eye_tilt": 15.0})],
        "ENGINE §7 S05(b): eye line 15 deg (HEAD_LEVEL hard, persistFrames 3) on even frames "
        "0-9, no face on odd ones: HEAD_LEVEL goes unavailable and requests its fallback "
        "FRAME_GENERAL (warn), so the gate input alternates and nothing is shown; the face is "
        "steady from frame 10, so HEAD_LEVEL is shown at frame 12 (t=800).",
        per_frame=face_flicker),
    "s11-severity-boost": lambda n: scenario(
        n, 6000, step(1000, {"px": CAFE_X, "face_luma": 0.27, "bg_luma": 0.3},
                      {"px": 0.75, "face_luma": 0.27, "bg_luma": 0.3}),
        "ENGINE §7 S11(a), cafe: a dark face (luma 0.27: CAFE_01 error 0.15 > hard 0.14, "
        "severity 1.07, eff 5) is shown first (T1 tick at 500 + 6 frames); from t=1000 the "
        "subject stands at x=0.75 (FRAME_MOVE_LEFT error 0.25, severity 2.08, eff 4+2=6), which "
        "outranks CAFE_01 and is shown when the hold ends (3867).",
        scene="cafe", luma_every=5),
    "s11-severity-tie": lambda n: scenario(
        n, 6000, step(1000, {"px": CAFE_X, "face_luma": 0.252, "bg_luma": 0.3},
                      {"px": CAFE_X, "face_luma": 0.252, "bg_luma": 0.3, "eye_tilt": 22.0}),
        "ENGINE §7 S11(b), cafe: CAFE_01 error 0.168 (severity 1.2, no boost, eff 5) shown "
        "first; from t=1000 the eye line is 22 deg (HEAD_LEVEL severity 1.83, eff 3+2=5): equal "
        "effective priority, HEAD_LEVEL wins on severity (§3.7) and is shown when the hold ends.",
        scene="cafe", luma_every=5),
    "s12-scene-switch": lambda n: scenario(
        n, 12000, [(0, {"px": CAFE_X, "face_luma": 0.30, "bg_luma": 0.3})],
        "ENGINE §7 S12: outdoor, a dark face (luma 0.30): OUT_01 error 0.15 (warn) is shown, "
        "CAFE_01 is never evaluated; ui_scene cafe at 6000 resets hysteresis and enables "
        "CAFE_01 (error 0.12, warn), which takes over once T1 has evaluated it.",
        luma_every=5, extra=(event(6000, "ui_scene", scene="cafe"),)),
    "s13-multi-person": lambda n: scenario(
        n, 1000, [(0, {"px": 0.65, "eye_tilt": 25.0, "people": 2})],
        "ENGINE §7 S13: two people; HEAD_LEVEL (eye line 25 deg, severity 2.08, eff 5) and "
        "FRAME_MOVE_LEFT (cx 0.15, eff 5) both hold, but only the multiPersonDegradeTo cues "
        "may be candidates (§3.4.5): FRAME_MOVE_LEFT is shown at 200. Compare s13-single-person.",
    ),
    "s13-single-person": lambda n: scenario(
        n, 1000, [(0, {"px": 0.65, "eye_tilt": 25.0, "people": 1})],
        "The same frames with one person: HEAD_LEVEL ties FRAME_MOVE_LEFT on effective "
        "priority and wins on severity (2.08 > 1.25, §3.7); shown at frame 2 (persistFrames 3).",
    ),
    "s14-eye-roi-fallback": lambda n: scenario(
        n, 8000, step(4000, {"px": CAFE_X, "eye_conf": 0.9},
                      {"px": CAFE_X, "eye_conf": 0.9, "left_prec": 0.02}),
        "ENGINE §7 S14, cafe: eyes no brighter than the face, so CAFE_11 (0.08 - diff) holds "
        "and is shown; from t=4000 the left eye's precision estimate is 0.02 (> 0.012, dropped "
        "by the §2.7 keep rule): eyeROI is unavailable, CAFE_11 is deactivated without "
        "exit_crossed (no praise) and requests FRAME_GENERAL once; the display clears.",
        scene="cafe", luma_every=5),
    "s24-thermal-degrade": lambda n: scenario(
        n, 25000, [(0, {})],
        "ENGINE §7 S24: thermal serious at 10 s: tier t0_hz=8 t1_enabled=false cause=thermal; "
        "landmarks accepted >= 121 ms apart; no T1 evaluation until recovery; thermal nominal "
        "at 20 s: t0_hz=15 at once, t1_enabled at 21 s (§3.11 [D] staged recovery).",
        extra=(event(10000, "thermal", state="serious"), event(20000, "thermal", state="nominal"))),
    "s25-frame-drop": lambda n: scenario(
        n, 6000, [(0, {})],
        "ENGINE §7 S25: preview_stats with 6 dropped frames in its 1 s window at 2000: the same "
        "degrade with cause frame_drop; a clean window (0 dropped, 30 fps) at 3000 recovers "
        "(T0 at once, T1 at 4000).",
        extra=(event(2000, "preview_stats", window_ms=1000, dropped_frames=6, avg_fps=24.0),
               event(3000, "preview_stats", window_ms=1000, dropped_frames=0, avg_fps=30.0))),
    "s15-quiet-not-match": lambda n: scenario(
        n, 2000, [(0, dict(REF, px=0.62))],
        "ENGINE §7 S15: reference targets 0 (centred, level); live identical except centerXOffset "
        "0.12, inside FRAME_MOVE_LEFT's withRef dead-band (0.10, 0.14]: no cue is shown, and from "
        "the 4th evaluation Match is blocked by FRAME_MOVE_LEFT alone (withref_match_state). "
        "The mirrored error -0.12 ties and keeps the non-mirrored one (S17 tie case).",
        extra=(reference(0, "ref-A", REF),)),
    "s16-match-praise": lambda n: scenario(
        n, 7000, [(0, REF)],
        "ENGINE §7 S16: live identical to the reference: evaluations 1-2 have one blocker in "
        "each of the 6 groups, evaluation 3 five (HEAD_LEVEL persists at 3), evaluation 4 "
        "match=true: praise on withref_match, card frozen, off by timeout 5000 ms later.",
        extra=(reference(0, "ref-A", REF),)),
    "s17-mirror": lambda n: scenario(
        n, 2000, [(0, dict(REF, px=0.45))],
        "ENGINE §7 S17: target centerXOffset +0.05, live -0.05, everything else equal: the "
        "mirrored error (0.05 - 0.05 = 0) wins (mirror_applied=true), match=true at evaluation 4.",
        extra=(reference(0, "ref-A", dict(REF, px=0.55)),)),
    "s18-stale-decider": lambda n: scenario(
        n, 3000, [(0, dict(REF, chin_gap=0.1005))],
        "ENGINE §7 S18 (MEMO m6.19 root cause #1): the session starts on the pre-hotreload spec "
        "(posespec_reload at 0: fingerprint v1.1.4|v1.1.4-final|cues=50, CHIN_DOWN/CHIN_UP "
        "required, 11 cues) and live noseToChinRatio 0.503 vs target 0.40 keeps CHIN_UP "
        "blocking Match; the reload of the current spec at 1500 changes the fingerprint to "
        "v1.1.4|v1.1.4-final-hotreload|cues=50, rebuilds the decider (9 required, exit counters "
        "reset) and Match holds 4 evaluations later.",
        extra=(reload(0, pre_hotreload_spec()), reference(0, "ref-A", dict(REF, chin_gap=0.082)),
               reload(1500, json.load(open(os.path.join(ROOT, "PoseSpec.json"), encoding="utf-8"))))),
    "s19-chin-not-required": lambda n: scenario(
        n, 7000, [(0, dict(REF, chin_gap=0.1005))],
        "ENGINE §7 S19: live noseToChinRatio 0.503 vs target 0.40: CHIN_* are not required "
        "(withRef null since the 2026-02-25 hotfix), so Match holds at evaluation 4 and "
        "blocked_by never names them; CHIN_UP still fires by its noRef rules (0.503 > 0.46).",
        extra=(reference(0, "ref-A", dict(REF, chin_gap=0.082)),)),
    "s20-no-pose-vs-reference": lambda n: scenario(
        n, 2000, [(0, {"absent": 1})],
        "ENGINE §7 S20: a waist-up reference (no hips; shoulders 0.01 apart in height so the "
        "torso box has one); live frames with no body and no face: blocked_by = [FRAME_MOVE_LEFT, "
        "FRAME_MOVE_DOWN, HEAD_LEVEL, HIP_SQUARE, SHOULDER_LEVEL_LEFT_DOWN, TORSO_STRAIGHTEN] "
        "(CON line 816), mirror_applied=false, withref_fallback reason=no_pose.",
        extra=(reference(0, "ref-waist-up", dict(REF, shoulder_tilt=0.01), drop=WAIST_UP),)),
    "s21-waist-up-block": lambda n: scenario(
        n, 2000, [(0, dict(REF, shoulder_tilt=0.01, drop=1))],
        "ENGINE §7 S21 / §8 G-14, missingTargetPolicy=block (default): live equals the waist-up "
        "reference; hipAngleDeg and torsoLeanAngleDeg have no target, so from evaluation 4 "
        "blocked_by = [HIP_SQUARE, TORSO_STRAIGHTEN] forever. Compare s21-waist-up-exclude.",
        extra=(reference(0, "ref-waist-up", dict(REF, shoulder_tilt=0.01), drop=WAIST_UP),)),
    "s21-waist-up-exclude": lambda n: scenario(
        n, 2000, [(0, dict(REF, shoulder_tilt=0.01, drop=1))],
        "The same with missingTargetPolicy=exclude (§1.8): the dimensions without a target are "
        "dropped, match=true at evaluation 4, withref_fallback reason=missing_target missing="
        "target.hipAngleDeg,target.torsoLeanAngleDeg.",
        options=dict(RULE_OPTIONS, missingTargetPolicy="exclude"),
        extra=(reference(0, "ref-waist-up", dict(REF, shoulder_tilt=0.01), drop=WAIST_UP),)),
    "s22-target-store-guard": lambda n: scenario(
        n, 3000, [(0, REF)],
        "ENGINE §7 S22: reference A (full body and face: every metric) at 0; a re-extraction of "
        "A at 1000 from a photo with only the shoulders (fewer than 5 metrics) is ignored "
        "(lowMetricsKeepExisting, [C] guard); reference B at 2000 (face and shoulders, fewer "
        "metrics than A) replaces A's targets ([D] the guard is per ref_id, G-33).",
        extra=(reference(0, "ref-A", REF),
               reference(1000, "ref-A", REF, drop=[j for j in JOINTS if j not in ("leftShoulder", "rightShoulder")]),
               reference(2000, "ref-B", dict(REF, shoulder_tilt=0.01), drop=[j for j in JOINTS if j not in ("leftShoulder", "rightShoulder")]))),
    "s23-reference-gates": lambda n: scenario(
        n, 183000, [(0, {})],
        "ENGINE §7 S23: four references rejected by the §3.14 gates, in order: two faces with "
        "conf 0.7 (multi_person), a face 0.10 wide (face_too_small), a left eye below the "
        "confidence (eyes_not_visible), a right shoulder at conf 0.4 (upper_body_incomplete): "
        "four ref_reject_not_suitable prompts with their reasons ({reason} 画面里有多个人 / 脸太小 / "
        "看不到眼睛 / 上半身不全), no copy, withRef stays inactive (cue_display stays noRef). The "
        "picks are 60.5 s apart: the L3 slot shows one modal per 60 s (A.3.2) and each new "
        "rejection replaces the previous one (equal priority, later wins). Compare "
        "s23b-reference-gates-rapid.",
        times=list(range(0, 183001, 500)),
        extra=REJECTS(500, 61000, 121500, 182000)),
    "s23b-reference-gates-rapid": lambda n: scenario(
        n, 3000, [(0, {})],
        "The S23 picks 500 ms apart, as a user trying four photos in a row would: the PRD's L3 "
        "throttle (one modal per 60 s in the slot, A.3.2) shows only the first rejection; the "
        "other three are dropped (drop_reason throttle) and the user never learns why those "
        "photos were refused. A hazard of the literal prompt rules, kept visible here.",
        extra=REJECTS(500, 1000, 1500, 2000)),
    "gate-probe-hold-vs-frames": lambda n: scenario(
        n, 3500, step(800, {"eye_tilt": 15.0}, {"eye_tilt": 15.0, "chin_gap": 0.088}),
        "The app's own gate probe (AntiJitterGateDebug.simulateHoldVsFrames, MEMO m6.14; ENGINE "
        "§3.9) through the whole pipeline, with persistFrames-3 cues at the probe's times: A = "
        "HEAD_LEVEL hard (eye line 15 deg, severity 1.25, eff 4) at 0, 100, 200, 300 -> shown at "
        "200; B = CHIN_UP hard (noseToChinRatio 0.6, severity 1.30, eff 4: wins the tie on "
        "severity) at 800, 900, 1000 -> A holds (reason hold); B at 3200 -> B shown (4 equal "
        "inputs, 3200 - 200 >= 3000).",
        times=[0, 100, 200, 300, 800, 900, 1000, 3200]),
    "subject-lost": lambda n: scenario(
        n, 6000, [(0, {})],
        "ENGINE §4.6 subject_lost with the [D] of §8 G-20: the subject leaves at 1000 (empty "
        "Vision results); 2000 ms after the last frame with a subject (933 -> 2933, the first "
        "empty frame at or after it is 2933) the L2 subject_lost banner is shown (stateOnly); the "
        "subject is back at 4000: the condition ends, the banner goes (dismissed, by condition).",
        per_frame=lambda k, t, s: {"absent": 1 if 1000 <= t < 4000 else 0}),
    "s44-line-angle-literal": lambda n: scenario(
        n, 1000, [(0, S44)],
        "ENGINE §7 S44 / §8 G-5, literal default (angleFix off): a camera-facing subject with "
        "level shoulders, lS (0.60,0.40) rS (0.45,0.40): shoulderAngleDeg = atan2(0, -0.15) = "
        "180 deg, so SHOULDER_LEVEL_LEFT_DOWN is hard (severity 12.9, eff 5) and displayed at "
        "t=200. HIP_SQUARE and TORSO_STRAIGHTEN are hard too (180 deg, G-6) but rank lower "
        "(severity 11.25). Compare s44-line-angle-fixed.",
        options={}),
    "s44-line-angle-fixed": lambda n: scenario(
        n, 1000, [(0, S44)],
        "ENGINE §7 S44 with angleFix=on (§1.8): the same frames; line angles fold into "
        "(-90, 90] and the torso lean reads 0 deg upright, so no cue is displayed.",
        options={"angleFix": "on"}),
}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_app import APP_SCENARIOS  # noqa: E402

SCENARIOS.update(APP_SCENARIOS)

if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["-o"] and len(args) >= 2:
        out, args = args[1], args[2:]
    else:
        out = tempfile.mkdtemp(prefix="corpus-jsonl-")
    set_out_dir(out)
    names = args or list(SCENARIOS)
    for n in names:
        if n not in SCENARIOS:
            sys.exit(f"unknown scenario '{n}'; known: {', '.join(SCENARIOS)}")
        SCENARIOS[n](n)
