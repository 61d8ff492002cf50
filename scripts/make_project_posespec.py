#!/usr/bin/env python3
"""Writes the project's PoseSpec.json from the app's reference PoseSpec.

The project spec keeps the reference's schema, cue ids, thresholds, structure and policies
byte for byte; only the director-card wording (`cues[].script.zh/en`) is the project's own.
Re-run after the reference changes:

    scripts/make_project_posespec.py [../shared/reference/PoseSpec.json] [PoseSpec.json]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_REF = os.path.join(os.path.dirname(REPO), "shared", "reference", "PoseSpec.json")

# cue id -> (zh variants, en variants); index i of zh and en say the same thing.
SCRIPTS = {
    "FRAME_MOVE_LEFT": (["向左挪一步", "往左边站一点", "再靠左一些"], ["Step a little to the left", "Stand a bit more left", "A touch further left"]),
    "FRAME_MOVE_RIGHT": (["向右挪一步", "往右边站一点", "再靠右一些"], ["Step a little to the right", "Stand a bit more right", "A touch further right"]),
    "FRAME_MOVE_UP": (["人往画面上方一点", "镜头压低一些", "再往上来一点"], ["Move up in the frame", "Lower the camera a little", "A bit higher in frame"]),
    "FRAME_MOVE_DOWN": (["人往画面下方一点", "镜头抬高一些", "再往下来一点"], ["Move down in the frame", "Raise the camera a little", "A bit lower in frame"]),
    "DIST_STEP_CLOSER": (["走近两步", "离镜头近一些", "再往前来点"], ["Come two steps closer", "Get nearer to the camera", "A little further forward"]),
    "DIST_STEP_BACK": (["往后退两步", "离镜头远一些", "再往后站点"], ["Take two steps back", "Move away from the camera", "Stand a little further back"]),
    "FRAME_ADD_HEADROOM": (["头顶多留些空间", "别贴着上边框", "上方再空一点"], ["More room above the head", "Keep off the top edge", "A bit more space on top"]),
    "FRAME_DONT_CROP_FEET": (["把脚拍进来", "脚底别被切掉", "下方多留些空间"], ["Get the feet in", "Don't cut off the feet", "More room below the feet"]),
    "SHOULDER_LEVEL_LEFT_DOWN": (["左肩往下沉", "左边肩膀放松", "左肩别提起来"], ["Let your left shoulder sink", "Relax the left shoulder", "Keep the left shoulder down"]),
    "SHOULDER_LEVEL_RIGHT_DOWN": (["右肩往下沉", "右边肩膀放松", "右肩别提起来"], ["Let your right shoulder sink", "Relax the right shoulder", "Keep the right shoulder down"]),
    "HIP_SQUARE": (["胯部摆平", "两边胯一样高", "站正一些"], ["Level your hips", "Even out your hips", "Stand square"]),
    "TORSO_STRAIGHTEN": (["上身挺直", "身体别歪", "腰背立起来"], ["Straighten your upper body", "Don't lean", "Lift through your back"]),
    "HEAD_LEVEL": (["头摆平一点", "别歪着头", "脑袋放正"], ["Keep your head level", "Don't tilt your head", "Head upright"]),
    "CHIN_DOWN": (["下巴轻轻往回收", "下巴低一点点", "收一下下巴"], ["Draw your chin in gently", "Lower your chin a touch", "Tuck the chin in"]),
    "CHIN_UP": (["下巴稍微抬起", "下巴高一点点", "抬一下下巴"], ["Raise your chin slightly", "Chin a touch higher", "Lift the chin a little"]),
    "HAND_OFF_FACE": (["手从脸边拿开", "别让手挡住脸", "手往下放一放"], ["Take your hand off your face", "Don't let hands block the face", "Bring your hands down"]),
    "ARMS_RELAX": (["胳膊放松", "手臂自然垂下", "别绷着手"], ["Relax your arms", "Let your arms hang naturally", "Don't tense your arms"]),
    "SHOULDERS_OPEN": (["肩膀往后打开", "挺胸一点", "别缩着肩"], ["Open your shoulders back", "Lift your chest a bit", "Don't curl your shoulders"]),
    "WEIGHT_SHIFT": (["把重心移到一条腿", "一条腿放松", "站姿随意一点"], ["Put your weight on one leg", "Relax one leg", "Loosen your stance"]),
    "FRAME_GENERAL": (["先别动", "稳一稳", "保持一下"], ["Hold on a moment", "Keep steady", "Stay right there"]),
    "CAFE_01_FACE_TOO_DARK": (["脸朝向光源", "朝亮的方向转", "往窗户那边靠"], ["Face the light source", "Turn toward the bright side", "Move nearer the window"]),
    "CAFE_02_FACE_BACKLIT": (["别背对窗户", "换个角度避开逆光", "离窗户远一点"], ["Don't stand with your back to the window", "Change the angle to avoid backlight", "Move away from the window"]),
    "CAFE_03_FACE_OVEREXPOSED": (["脸太亮了，离光远点", "别让强光直射脸", "稍微侧开一点"], ["Too bright—step back from the light", "Keep strong light off the face", "Turn slightly away"]),
    "CAFE_04_FACE_TOO_FLAT": (["脸侧过去一点", "转一个小角度", "侧脸更有层次"], ["Turn your face a little", "Rotate a small angle", "A side angle adds depth"]),
    "CAFE_05_WB_TOO_YELLOW": (["离暖色灯远一点", "找自然光的位置", "往窗边挪一挪"], ["Move away from the warm lamp", "Find natural light", "Shift toward the window"]),
    "CAFE_06_WB_MIXED_LIGHT": (["别站在两种光之间", "往一侧挪一点", "只留一种光源"], ["Don't stand between two lights", "Shift to one side", "Keep to one light source"]),
    "CAFE_07_BG_TOO_BUSY": (["背景有点乱，换个位置", "往旁边挪一步", "找面干净的墙"], ["Busy background—change spot", "Take a step sideways", "Find a plain wall"]),
    "CAFE_08_BG_BRIGHT_SPOT": (["身后有亮点，挪开些", "别让灯在头后面", "稍微换个位置"], ["Bright spot behind—move away", "Keep lamps from behind your head", "Change position slightly"]),
    "CAFE_09_GLASSES_GLARE": (["眼镜反光，偏一下头", "下巴稍微收一收", "别正对着灯"], ["Glasses glare—tilt your head", "Tuck your chin slightly", "Don't face the lamp head-on"]),
    "CAFE_10_LOW_LIGHT_STEADY": (["光线暗，拿稳手机", "别晃，停一秒", "稳住再按快门"], ["Low light—hold the phone steady", "Don't shake, pause a second", "Steady, then shoot"]),
    "CAFE_11_EYES_TOWARD_LIGHT": (["眼睛望向光", "视线往窗边去", "抬眼找找光"], ["Look toward the light", "Gaze toward the window", "Lift your eyes to the light"]),
    "CAFE_12_CAFE_THIRDS_COMPOSE": (["人放到三分线上", "往画面一侧靠", "别站正中间"], ["Put the subject on a third", "Move toward one side", "Avoid the dead centre"]),
    "CAFE_13_KEEP_FACE_CLEAR_OF_MENU": (["杯子别挡住嘴", "菜单往下放", "手再低一点"], ["Keep the cup off your mouth", "Lower the menu", "Hands a little lower"]),
    "CAFE_14_SHRUG_DETECTED": (["肩膀放下来", "别耸肩", "脖子放松"], ["Let your shoulders drop", "No shrugging", "Relax your neck"]),
    "CAFE_15_SEATED_POSTURE_STRAIGHT": (["坐直一些", "背别弯", "身体坐正"], ["Sit a little straighter", "Don't slouch", "Sit upright"]),
    "OUT_01_FACE_IN_SHADOW": (["脸在阴影里，转向太阳", "往亮处挪一点", "找有光的位置"], ["Face in shadow—turn to the sun", "Move into the light", "Find a brighter spot"]),
    "OUT_02_BACKLIGHT_SILHOUETTE": (["逆光太强，换个方向", "别背对太阳", "侧过身来"], ["Strong backlight—change direction", "Don't put the sun behind you", "Turn side-on"]),
    "OUT_03_SUN_SQUINT": (["太晃眼就转个身", "背对太阳站", "到树荫下试试"], ["If it's glaring, turn around", "Stand with the sun behind", "Try the shade"]),
    "OUT_04_SKY_BLOWOUT": (["天空太亮，镜头低一点", "少拍点天空", "画面往下移"], ["Sky too bright—aim lower", "Less sky in frame", "Tilt the frame down"]),
    "OUT_05_HORIZON_LEVEL": (["把地平线拉平", "手机别歪", "画面摆正"], ["Level the horizon", "Hold the phone straight", "Straighten the frame"]),
    "OUT_06_VERTICALS_STRAIGHT": (["建筑歪了，手机放平", "别往上仰着拍", "退后几步再拍"], ["Buildings lean—hold the phone level", "Don't tilt upward", "Step back, then shoot"]),
    "OUT_07_LANDMARK_ALIGN_X": (["往左移，对上参考图", "再向左一点", "左一点就对齐了"], ["Move left to line up", "A little more left", "Slightly left and it lines up"]),
    "OUT_08_LANDMARK_ALIGN_Y": (["往上移，对上参考图", "再高一点", "上一点就对齐了"], ["Move up to line up", "A little higher", "Slightly up and it lines up"]),
    "OUT_09_LANDMARK_ALIGN_ROTATE": (["手机转一下角度", "顺时针转一点", "逆时针转一点"], ["Rotate the phone to match", "Turn a little clockwise", "Turn a little anticlockwise"]),
    "OUT_10_LANDMARK_SCALE_MATCH": (["后退一点，像参考图那样", "往前一点", "调整一下远近"], ["Step back to match the reference", "Step forward a little", "Adjust the distance"]),
    "OUT_11_CROWD_TOO_MUCH": (["人太多了，换个角度", "等路人走开", "往空的地方挪"], ["Too many people—change angle", "Wait for passers-by", "Move to an emptier spot"]),
    "OUT_12_STRONG_SHADOW_STRIPES": (["脸上有条纹阴影，换位置", "站到整片阴影里", "稍微侧开一点"], ["Striped shadows—change spot", "Step fully into the shade", "Turn slightly aside"]),
    "OUT_13_LENS_FLARE_RISK": (["太阳别进画面", "偏一点角度防眩光", "用手挡一下太阳"], ["Keep the sun out of the shot", "Angle away to avoid flare", "Shade the lens with your hand"]),
    "OUT_14_OUTDOOR_COMPOSE_MORE_LANDMARK": (["退几步，把景拍进来", "人别占太满", "拍宽一点"], ["Step back to include the view", "Don't fill the frame", "Go a bit wider"]),
    "OUT_15_HAIR_COVERS_FACE": (["头发挡脸了，理一下", "把头发拨到耳后", "露出脸来"], ["Hair over your face—fix it", "Tuck your hair behind your ear", "Let your face show"]),
}


def main():
    ref = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_REF
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(REPO, "PoseSpec.json")
    with open(ref, encoding="utf-8") as f:
        spec = json.load(f)
    ids = [c["id"] for c in spec["cues"]]
    missing = [i for i in ids if i not in SCRIPTS]
    extra = [i for i in SCRIPTS if i not in ids]
    if missing or extra:
        sys.exit(f"script table out of date: missing {missing}, extra {extra}")
    for cue in spec["cues"]:
        zh, en = SCRIPTS[cue["id"]]
        assert len(zh) == len(en) and 2 <= len(zh) <= 3, cue["id"]
        cue["script"]["zh"] = zh
        cue["script"]["en"] = en
    text = json.dumps(spec, ensure_ascii=False, indent=2) + "\n"
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {out} ({len(ids)} cues)")


if __name__ == "__main__":
    main()
