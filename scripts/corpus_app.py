"""App-side scenarios of the corpus (ENGINE §4–6, §7 S01–S03, S26–S43): sessions, capture,
camera, prompts, ODR, diagnostics. No landmark frames unless a scenario needs them; every
effect request the engine makes is answered by a recorded result (strict replay, §1.6).

Imported by scripts/corpus_jsonl.py, whose SCENARIOS table includes APP_SCENARIOS (an
example now: the corpus source is Recordings/<name>.scenario.yaml, see scripts/py2scenario.py).
"""
import copy
import hashlib
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WALL_START_MS = 1_770_860_000_000
HOUR = 3_600_000
OUT_DIR = None  # set by corpus_jsonl.set_out_dir()


def ev(t, kind, **fields):
    return (t, dict({"t": t, "kind": kind}, **fields))


def asset(n, salt="a"):
    """A PhotoKit local identifier, UUID-shaped like the reference export's (§6.6)."""
    h = hashlib.sha256(f"{salt}-{n}".encode()).hexdigest().upper()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}/L0/001"


def shot(t, n, salt="a", write=420, fetch=(3,), album=(30,), thumb=300, data=180, bytes_=2_100_000,
         write_error=None, album_errors=()):
    """A shutter tap at t for shot n and the results PhotoKit would send: photo data at
    +`data`, the write result at +`write` (ok, or `write_error` {domain, code}), fetch results
    `fetch` ms after the write (count 1 for the last, 0 before), album results after the
    verification, the first thumbnail at +`thumb` (ok)."""
    a = asset(n, salt)
    out = [ev(t, "shutter_tap"), ev(t + data, "photo_data", shot=n, bytes=bytes_, ext="heic")]
    if thumb is not None:
        out.append(ev(t + thumb, "thumb_result", shot=n, ok=True))
    if write is None:
        return out
    if write_error:
        out.append(ev(t + write, "photokit_write_result", shot=n, attempt=1, ok=False, error=write_error))
        return out
    out.append(ev(t + write, "photokit_write_result", shot=n, attempt=1, ok=True, asset_id=a))
    last = t + write
    for i, d in enumerate(fetch):
        last = t + write + d
        out.append(ev(last, "asset_fetch_result", asset_id=a, attempt=i + 1,
                      count=1 if i == len(fetch) - 1 else 0))
    for i, d in enumerate(album):
        err = album_errors[i] if i < len(album_errors) else None
        if err:
            out.append(ev(last + d, "album_add_result", asset_id=a, attempt=i + 1, ok=False, error=err))
        else:
            out.append(ev(last + d, "album_add_result", asset_id=a, attempt=i + 1, ok=True))
    return out


def stored_item(n, state="write_success", liked=False, salt="s", pending=False, thumb="ready", album="success"):
    it = {"item_id": f"I-1-{n}", "shot_seq": n, "created_at_ms": WALL_START_MS - 600_000 + n * 1000,
          "state": state, "thumbnail_state": thumb, "album_state": album, "liked": liked,
          "write_attempts": 1 if state != "captured_preview" else 0}
    if state in ("write_success",):
        it["asset_id"] = asset(n, salt)
    if pending:
        it["pending_file_rel_path"] = f"pending/I-1-{n}.heic"
    return it


def session(items, last_active_delta=-60_000, sid="S-0001"):
    return {"session_id": sid, "created_at_ms": WALL_START_MS - 2 * HOUR,
            "last_active_at_ms": WALL_START_MS + last_active_delta, "scene": "cafe",
            "items": sorted(items, key=lambda i: -i["shot_seq"]),
            "next_shot_seq": max([i["shot_seq"] for i in items] + [0]) + 1}


def spec_variant(edit):
    spec = json.load(open(os.path.join(ROOT, "PoseSpec.json"), encoding="utf-8"))
    edit(spec)
    return spec


def frames(times, px=0.65):
    """Camera-facing subject right of centre (FRAME_MOVE_LEFT hard when evaluated)."""
    out = []
    for k, t in enumerate(times):
        h = px - 0.5
        body = {
            "nose": [px, 0.22, 0.9], "neck": [px, 0.29, 0.9], "leftShoulder": [px + 0.075, 0.30, 0.9],
            "rightShoulder": [px - 0.075, 0.30, 0.9], "root": [px, 0.66, 0.9],
            "leftHip": [px + 0.0525, 0.66, 0.9], "rightHip": [px - 0.0525, 0.66, 0.9],
        }
        out.append((t, {"t": t, "kind": "landmarks", "frame": k, "src_t": t, "image": {"w": 1080, "h": 1920},
                        "coords": "canonical", "body": body, "faces": [], "people": 1}))
    return out


def write(name, duration_ms, events, notes, initial=None, options=None):
    spec = open(os.path.join(ROOT, "PoseSpec.json"), "rb").read()
    init = {"scene": "cafe", "camera_auth": "authorized", "voiceover": False, "thermal": "nominal",
            "camera_facing": "back", "photo_auth": {"status": "authorized", "scope": "full"}, "free_mb": 20000}
    init.update(initial or {})
    header = {"format": "jp-replay/1", "name": name, "wall_start_ms": WALL_START_MS,
              "posespec_sha256": hashlib.sha256(spec).hexdigest(), "options": options or {},
              "initial": init, "duration_ms": duration_ms, "generator": "scripts/corpus_app.py",
              "notes": notes}
    events = sorted(events, key=lambda e: e[0])
    path = os.path.join(OUT_DIR, name + ".jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for obj in [header] + [e for _, e in events]:
            f.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(events)} events)")


def no_version(spec):
    spec["prdVersion"] = "v0.0.0"


def no_lshoulder(spec):
    del spec["binding"]["aliases"]["lShoulder"]


def no_eye_roi(spec):
    del spec["rois"]["eyeROI"]


def no_binding(spec):
    del spec["binding"]


def no_rois(spec):
    del spec["rois"]


def spec_scenario(edit, what):
    def make(n):
        write(n, 1000, frames([0, 67, 133, 200, 267, 333, 400]),
              f"ENGINE §7 {what}: the launch PoseSpec (header initial.posespec) fails validation "
              "(§2.3): its L3 modal (priority 99, stateOnly) is shown at launch, the shutter is "
              "disabled with reason posespec_invalid, and no cue is evaluated although the frames "
              "put the subject right of centre (FRAME_MOVE_LEFT hard otherwise).",
              initial={"posespec": spec_variant(edit)})
    return make


def happy(n):
    write(n, 4000, shot(1000, 1),
          "ENGINE §7 S28: shutter at 1000; photo_data 2,100,000 B heic at +180; write ok at +420; "
          "fetch count=1 at +423: captured_preview -> writing -> write_success; "
          "photo_write_verification retry_used=false verified_within_2s=true first_fetch_ms=3; "
          "album add requested after the verification (§5.5, §5.7).")


APP_SCENARIOS = {
    "s01-posespec-version": spec_scenario(no_version, "S01 (prdVersion v0.0.0)"),
    "s02-posespec-alias": spec_scenario(no_lshoulder, "S02 (binding.aliases.lShoulder removed)"),
    "s03a-posespec-eye-roi": spec_scenario(no_eye_roi, "S03(a) (rois.eyeROI removed)"),
    "s03b-posespec-binding": spec_scenario(no_binding, "S03(b) (binding removed)"),
    "s03c-posespec-rois": spec_scenario(no_rois, "S03(c) (rois removed)"),
    "s26-warmup-failure": lambda n: write(
        n, 16000, [ev(0, "app_launch"), ev(10000, "prompt_action", key="camera_init_failed", action_id="retry_camera_init"),
                   ev(14000, "camera_ready")],
        "ENGINE §7 S26: camera authorized, app_launch at 0, no camera_ready: warming at 0, overlay "
        "upgraded at 3000, warm-up failed at 8000 with L3 camera_init_failed '发生未知错误。相机准备超时（>8s）。' "
        "and shutter reason warmup_failed; 重试 at 10000 restarts the 3 s / 8 s timers (upgraded at "
        "13000), camera_ready at 14000 enables the shutter.",
        initial={"camera_ready": False}),
    "s27-camera-permission": lambda n: write(
        n, 6000, [ev(0, "app_launch"), ev(1600, "prompt_action", key="camera_permission_preprompt", action_id="continue"),
                  ev(1600, "system_dialog", open=True), ev(3000, "system_dialog", open=False),
                  ev(3000, "camera_permission_result", granted=False)],
        "ENGINE §7 S27: camera auth not_determined: the L3 pre-prompt at launch (A.13 "
        "prompt_shown / prompt_action_tapped / prompt_dismissed with the key sets of the "
        "reference export records 1-3), 继续 -> effect request_camera_permission; the system "
        "dialog answers 'not granted' -> L2 '未获得相机权限，无法拍照' [去设置]; the shutter stays "
        "disabled with reason camera_not_authorized.",
        initial={"camera_auth": "not_determined", "camera_ready": False}),
    "s29-fetch-retry": lambda n: write(
        n, 4000, shot(1000, 1, fetch=(3, 505)),
        "ENGINE §7 S29: as S28 but fetch #1 returns count 0; fetch #2 is requested 500 ms after "
        "the first result and returns 1: retry_used=true retry_delay_ms=500 "
        "verified_within_2s=true; the item never becomes write_failed (§5.7)."),
    "s30-capture-deadline": lambda n: write(
        n, 5000, shot(1000, 1, write=None, bytes_=40_000, thumb=None),
        "ENGINE §7 S30: shutter at 1000; photo_data of 40,000 B (< 50,000) leaves the item in "
        "captured_preview; the 2.0 s deadline removes it at 3000 with the capture_failed toast; "
        "workset_count unchanged (§5.5, §5.8)."),
    "s31-capture-failed-escalation": lambda n: write(
        n, 46000, [e for t in (0, 10000, 25000, 40000) for e in
                   (ev(t, "shutter_tap"), ev(t + 100, "photo_capture_error", shot=(t // 10000) + 1 if t < 40000 else 4,
                                                                            error="no_image"))],
        "ENGINE §7 S31 (times +2000: each tap's deadline fails 2 s later): capture failures at 2000, "
        "12000, 27000 and 42000, no action on the modal: 1st/2nd -> toast; 3rd -> L3 camera_abnormal "
        "(count 3); 4th: entries 12000 (exactly 30 s old, kept), 27000, 42000 -> count 3 -> "
        "re-trigger, dropped by the L3 slot window (1 per 60 s): prompt dropped throttle (§5.8, §4.4)."),
    "s32-in-flight-limit": lambda n: write(
        n, 6000, shot(1000, 1, write=2000, thumb=300) + shot(1050, 2, salt="a", write=2450, thumb=300),
        "ENGINE §7 S32: two taps 50 ms apart with slow writes: 2 items; after the second the "
        "shutter reason is in_flight_limit_reached with the in_flight_saving banner; the first "
        "write succeeds at 3000 -> in_flight 1, banner withdrawn, shutter enabled (§5.3)."),
    "s33-write-failed-block": lambda n: write(
        n, 8000, shot(1000, 1, write_error={"domain": "PHPhotosErrorDomain", "code": 3305})
        + [ev(3000, "prompt_action", key="write_failed_block", action_id="open_first_write_failed"),
           ev(5000, "prompt_action", key="write_failed", action_id="retry_write"),
           ev(5300, "photokit_write_result", shot=1, attempt=2, ok=True, asset_id=asset(1)),
           ev(5303, "asset_fetch_result", asset_id=asset(1), attempt=1, count=1),
           ev(5330, "album_add_result", asset_id=asset(1), attempt=1, ok=True)],
        "ENGINE §7 S33: PhotoKit error PHPhotosErrorDomain 3305 -> write_failed(no_space); the "
        "bar reads '未保存到系统相册（手机空间不够）' (writeFailReasonStrings=a10); shutter reason "
        "blocked_by_write_failed with workset 1 < 20; L3 write_failed_block and the "
        "blocked_by_write_failed banner once (A.13 blocked_by_write_failed); 查看并处理 at 3000 "
        "opens the Viewer on the item, whose bar shows the reason; 重试保存 at 5000 -> "
        "writing (attempt 2) -> write_success at 5300, shutter enabled (§5.6)."),
    "s34-transient-write-retry": lambda n: write(
        n, 4000, shot(1000, 1, write_error={"domain": "PHPhotosErrorDomain", "code": 3302})
        + [ev(1720, "photokit_write_result", shot=1, attempt=2, ok=True, asset_id=asset(1)),
           ev(1723, "asset_fetch_result", asset_id=asset(1), attempt=1, count=1),
           ev(1750, "album_add_result", asset_id=asset(1), attempt=1, ok=True)],
        "ENGINE §7 S34: error 3302 (system_pressure, transient) then success: no write_failed "
        "is ever visible; attempt 2 is requested 300 ms after the failure; the item stays writing "
        "until write_success at 1720 (§5.5)."),
}


def s35(n):
    items = [stored_item(i, liked=(i <= 8)) for i in range(1, 15)]
    events = []
    t = 1000
    for k in range(15, 21):
        events += shot(t, k)
        t += 3000
    # 20 reached at 16000: L3. Dismissed at 18000 (suppressed 30 s); a tap at 19000 re-emits
    # (suppressed); a tap at 77000 (window of 60 s since 16000 over) shows it again.
    events += [ev(18000, "prompt_action", key="session_full_20", action_id="dismiss"),
               ev(19000, "shutter_tap"), ev(77000, "shutter_tap"),
               ev(78000, "prompt_action", key="session_full_20", action_id="clear_unliked")]
    t = 80000
    for k in range(21, 28):
        events += shot(t, k)
        t += 3000
    write(n, t + 2000, events,
          "ENGINE §7 S35: 14 restored items (8 liked); 6 shots: the 15 banner at the 1st (14 -> 15) "
          "once; L3 session_full_20 at the 6th (16000); shutter workset_full; 取消 at 18000 keeps it "
          "disabled; a tap at 19000 re-emits the modal, dropped (per-key 10 s throttle; the 30 s "
          "suppression after 取消 would drop it too); a tap "
          "at 77000 shows it again (the L3 window of 60 s since 16000 is over); 清理未喜欢 removes "
          "the 12 un-liked -> 8 items, shutter enabled; 7 more shots reach 15 again -> no banner "
          "(sessionOnce, §5.4).",
          initial={"session_restore": session(items)})


def s37(n):
    events = [ev(1000, "shutter_tap"), ev(1180, "photo_data", shot=1, bytes=2_100_000, ext="heic"),
              ev(1300, "thumb_result", shot=1, ok=False), ev(1600, "thumb_result", shot=1, ok=False)]
    a = asset(1)
    events += [ev(1420, "photokit_write_result", shot=1, attempt=1, ok=True, asset_id=a),
               ev(1423, "asset_fetch_result", asset_id=a, attempt=1, count=1),
               ev(1450, "album_add_result", asset_id=a, attempt=1, ok=True),
               ev(8000, "thumb_result", shot=1, ok=True)]
    b = asset(2)
    events += [ev(40000, "shutter_tap"), ev(40180, "photo_data", shot=2, bytes=2_100_000, ext="heic"),
               ev(40300, "thumb_result", shot=2, ok=False), ev(40600, "thumb_result", shot=2, ok=False),
               ev(41600, "thumb_result", shot=2, ok=False),
               ev(40420, "photokit_write_result", shot=2, attempt=1, ok=True, asset_id=b),
               ev(40423, "asset_fetch_result", asset_id=b, attempt=1, count=1),
               ev(40450, "album_add_result", asset_id=b, attempt=1, ok=True),
               ev(46000, "viewer_open", item=2),
               ev(71000, "rebuild_thumb_tap", item=2), ev(71100, "thumb_result", shot=2, ok=False),
               ev(72000, "rebuild_thumb_tap", item=2),
               ev(73500, "rebuild_thumb_tap", item=2), ev(73600, "thumb_result", shot=2, ok=False)]
    write(n, 76000, events,
          "ENGINE §7 S37: shot 1's thumbnail attempts (+300, +600) fail and the third answers ok "
          "only at 8000: thumb failed at +5000 (6000), ready at 8000 (self-heal). Shot 2 (40000) "
          "never gets one: failed at 45000 (thumb_failed banner when viewed at 46000), "
          "failed_permanent at 70000 (+30 s); rebuild at 71000 -> generate_thumb; a tap at 72000 "
          "(< 2 s) is ignored; 73500 -> another attempt (§5.10).")


def s39(variant):
    def make(n):
        if variant == "expired":
            s = session([stored_item(i) for i in (1, 2, 3)], last_active_delta=-12 * HOUR - 1)
            note = ("lastActiveAt = wall_start - 12 h - 1 ms: expired -> a new session S-0002, the 3 old "
                    "items are gone (workset 0)")
        elif variant == "exact":
            s = session([stored_item(i) for i in (1, 2, 3)], last_active_delta=-12 * HOUR)
            note = "lastActiveAt = wall_start - 12 h exactly: restored ([C] isExpired uses >), 3 items"
        else:
            s = session([stored_item(1), stored_item(2, state="writing", pending=True, thumb="pending", album="none"),
                         stored_item(3, state="captured_preview", thumb="pending", album="none")])
            note = ("a restored writing item with its pending file -> write_failed(photo_lib_unavailable), "
                    "shutter blocked_by_write_failed; a captured_preview item without pending is removed "
                    "-> session_recover_prune '有 1 张照片已不可用…'")
        events = [ev(100, "thumb_result", shot=2, ok=True)] if variant == "writing" else []
        write(n, 2000, events, f"ENGINE §7 S39 (§5.1 TTL and cold-start recovery): {note}.",
              initial={"session_restore": s})
    return make


def s40(n):
    items = [stored_item(i) for i in range(1, 21)]
    events = [ev(0, "app_launch"), ev(10000, "reset_session_tap"),
              ev(12000, "prompt_action", key="camera_init_failed", action_id="retry_camera_init"),
              ev(13000, "camera_ready"), ev(15000, "reset_session_tap")]
    write(n, 17000, events,
          "ENGINE §7 S40 through the engine: a restored full session shows session_full_20 (80) "
          "at 0; the warm-up started by app_launch at 0 fails at 8000 (the 8 s rule; §7 writes "
          "5,000): camera_init_failed (90) preempts it (prompt_dismissed preempt, then shown, "
          "exempt from the slot window); reset_session_confirm (65) at 10000 is dropped "
          "lower_priority; 重试 at 12000: action + dismissed(action); reset_session_confirm again "
          "at 15000: dropped throttle (2 L3 shown within 60 s). PromptCenterTests replays the "
          "exact §7 times.",
          initial={"session_restore": session(items), "camera_ready": False})


def s41(on):
    def make(n):
        write(n, 14000, [ev(1000, "praise_feedback", vote="up")] + shot(2000, 1),
              f"ENGINE §7 S41 (§4.3), VoiceOver {'on' if on else 'off'}: an L1 toast (feedback_recorded "
              f"at 1000) auto-dismisses after {6000 if on else 4000} ms; a button-less L2 banner "
              f"(low_space_warn before the capture at 2000, free 400 MB) after {8000 if on else 6000} ms.",
              initial={"voiceover": on, "free_mb": 400})
    return make


def s42(n):
    events = [ev(1000, "inspiration_open"), ev(1500, "odr_result", tag="inspiration", attempt=1, ok=False,
                                                  error="network"),
              ev(2000, "network", status="unsatisfied"), ev(3000, "network", status="satisfied"),
              ev(3800, "odr_result", tag="inspiration", attempt=2, ok=True),
              ev(4500, "network", status="unsatisfied"), ev(5000, "network", status="satisfied")]
    write(n, 7000, events,
          "ENGINE §7 S42: the Inspiration sheet's first download fails -> failed_retry; the "
          "network comes back at 3000 -> exactly one retry request at 3500 (500 ms debounce); it "
          "succeeds -> odr_auto_retry state_before=failed_retry debounce_ms=500 result=success; a "
          "second network flap after the success does nothing (§5.14).")


def kill(variant):
    def make(n):
        events = [ev(1000, "shutter_tap")]
        if variant == "before-pending":
            events += [ev(1100, "app_lifecycle", state="terminated"), ev(5000, "app_launch"), ev(5500, "camera_ready")]
            note = ("killed at 1100 between the optimistic insert (captured_preview) and the pending "
                    "file: after relaunch the item has no pending file and is removed; "
                    "session_recover_prune '有 1 张照片已不可用…' (§5.1 recovery)")
        elif variant == "writing":
            a = asset(1)
            events += [ev(1180, "photo_data", shot=1, bytes=2_100_000, ext="heic"),
                       ev(1250, "app_lifecycle", state="terminated"), ev(5000, "app_launch"), ev(5500, "camera_ready"),
                       ev(6500, "prompt_action", key="write_failed_block", action_id="open_first_write_failed"),
                       ev(7000, "prompt_action", key="write_failed", action_id="retry_write"),
                       ev(7300, "photokit_write_result", shot=1, attempt=2, ok=True, asset_id=a),
                       ev(7303, "asset_fetch_result", asset_id=a, attempt=1, count=1),
                       ev(7330, "album_add_result", asset_id=a, attempt=1, ok=True),
                       ev(5100, "thumb_result", shot=1, ok=True)]
            note = ("killed at 1250 while the item is writing (pending file written at 1180): the engine "
                    "restarts from the SQLite store at 5000; the item comes back write_failed"
                    "(photo_lib_unavailable) and the shutter is blocked_by_write_failed; 重试保存 at 7000 "
                    "saves it. Compare kill-control (same events, no kill)")
        else:
            events = shot(1000, 1)
            note = "the control of kill-while-writing: no kill, the write succeeds at 1420, nothing is blocked"
        write(n, 9000, events, f"Data safety through a kill (ENGINE §5.1, §5.5): {note}.")
    return make


def session20(n):
    events = []
    t = 1000
    for k in range(1, 21):
        if k == 7:
            events += shot(t, k, write_error={"domain": "PHPhotosErrorDomain", "code": 3305})
            a = asset(k)
            events += [ev(t + 1500, "prompt_action", key="write_failed_block", action_id="open_first_write_failed"),
                       ev(t + 1800, "prompt_action", key="write_failed", action_id="retry_write"),
                       ev(t + 2100, "photokit_write_result", shot=k, attempt=2, ok=True, asset_id=a),
                       ev(t + 2103, "asset_fetch_result", asset_id=a, attempt=1, count=1),
                       ev(t + 2130, "album_add_result", asset_id=a, attempt=1, ok=True)]
        else:
            events += shot(t, k)
        if k == 3:
            events.append(ev(t + 1000, "praise_feedback", vote="up"))
        t += 2500
    events += [ev(t, "shutter_tap"), ev(t + 1000, "prompt_action", key="session_full_20", action_id="dismiss")]
    write(n, t + 12000, events,
          "A 20-shot session with VoiceOver on (ENGINE §4, §5): a write failure at shot 7 (no "
          "space) blocks the shutter until 重试保存 succeeds; the 15 banner once; a tap while full. "
          "Hazard shown: the 20-limit L3 is dropped (throttle) because the write_failed_block "
          "modal was shown 32 s earlier and A.3.2 allows one L3 per 60 s in the slot, so the "
          "shutter goes dark at 20 without the modal PRD §4.1.3 promises. Checked by "
          "PromptInvariantTests: never two L3 at once, no L2 with a primary button dismissed by "
          "its timer, VoiceOver durations.",
          initial={"voiceover": True})


APP_SCENARIOS.update({
    "s35-limits-15-20": s35,
    "s36-album-retries": lambda n: write(
        n, 20000, shot(1000, 1, album=(30, 1030, 4030, 14030),
                       album_errors=[{"kind": "other", "domain": "PHPhotosErrorDomain", "code": 3300}] * 4),
        "ENGINE §7 S36: album add fails 4 times (first failure at 1453): automatic retries at "
        "+1 s, +4 s, +14 s after the first failure (2453, 5453, 15453), then none; the "
        "album_add_failed banner only once; the shutter never blocked (§5.9)."),
    "s37-thumbnails": s37,
    "s38-phantom-asset": lambda n: write(
        n, 3000, shot(1000, 1, album_errors=[{"kind": "asset_not_found", "domain": "PHPhotosErrorDomain", "code": 3201}]),
        "ENGINE §7 S38: photo auth limited; the album add pre-flight finds no asset "
        "(asset_not_found): the item is pruned ([C]) and phantom_asset_detected logged with "
        "asset_id_hash = SHA-256 of the local identifier, auth_snapshot=limited, heal_action=pruned; "
        "no prompt (§5.11).",
        initial={"photo_auth": {"status": "limited", "scope": "limited"}}),
    "s39a-session-ttl-expired": s39("expired"),
    "s39b-session-ttl-exact": s39("exact"),
    "s39c-session-recover-writing": s39("writing"),
    "s40-prompt-preemption": s40,
    "s41-voiceover-on": s41(True),
    "s41-voiceover-off": s41(False),
    "s42-odr-auto-retry": s42,
    "kill-while-writing": kill("writing"),
    "kill-control": kill("control"),
    "kill-before-pending": kill("before-pending"),
    "session-20-shots": session20,
})


def s43(n):
    day = 86_400_000
    mib = 1_048_576

    def f(days_ago, size):
        # File names are UTC days (§6.5); 2026-02-12 is the day of wall_start.
        import datetime
        d = datetime.datetime.fromtimestamp((WALL_START_MS - days_ago * day) / 1000, datetime.timezone.utc)
        return {"name": f"diagnostics-{d:%Y-%m-%d}.jsonl", "size_bytes": size,
                "mtime_ms": WALL_START_MS - days_ago * day}
    files = [f(31, 40 * mib), f(2, 11 * mib), f(0, 2 * mib)]
    write(n, 1000, [ev(500, "reset_session_tap")],
          "ENGINE §7 S43: diagnostics files of 40 MiB (31 days old), 11 MiB (2 days) and 2 MiB "
          "(today) in the header; the rotation plan after the first append (§6.5 [D]): the age "
          "rule deletes the 31-day file; the remaining 13 MiB are within the 50 MiB cap, so "
          "nothing is deleted for size.",
          initial={"diagnostics_files": files})


APP_SCENARIOS["s43-diagnostics-rotation"] = s43
