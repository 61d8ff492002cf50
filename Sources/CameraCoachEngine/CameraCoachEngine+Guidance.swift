import CanonicalJSON

/// A face in the UI's space (origin top-left, y down, normalised to the full frame).
struct CCUIFace {
  var left: Double
  var top: Double
  var width: Double
  var height: Double
  var yaw: Double
  var noseX: Double
  var bottom: Double { top + height }
  var right: Double { left + width }
  var centerX: Double { left + width / 2 }
  var centerY: Double { top + height / 2 }
}

extension CameraCoachEngine {
  /// The frame analyser's coordinate step: the detector's box (bottom-left origin, y up) to the
  /// UI's (top-left, y down), the landmark x un-mirrored for the back camera; the largest
  /// `memory.facesMax` faces, largest first (ties: leftmost first).
  func uiFaces(_ faces: [CCFace]) -> [CCUIFace] {
    let sorted = faces.enumerated().sorted { a, b in
      let (x, y) = (a.element.w * a.element.h, b.element.w * b.element.h)
      if x != y { return x > y }
      if a.element.x != b.element.x { return a.element.x < b.element.x }
      return a.offset < b.offset
    }.map(\.element)
    return sorted.prefix(memory.facesMax).map { f in
      let top = options.has(.yNotFlipped) ? f.y : 1 - (f.y + f.h)
      let mirror = camera == .back && !options.has(.landmarkXNotMirrored)
      return CCUIFace(left: f.x, top: top, width: f.w, height: f.h, yaw: f.yaw, noseX: mirror ? 1 - f.noseX : f.noseX)
    }
  }

  /// One analysed frame: level lines and haptic, then the machine and the rules.
  mutating func analyze(faces raw: [CCFace], roll: Double, rate: Double, at t: Int64, _ out: inout [CCOutput]) {
    horizonMarks(roll: roll, rate: rate, &out)
    let faces = uiFaces(raw)
    var conditions: [CCAdvice: GuidanceAdvice] = [:]
    if !faces.isEmpty {
      for rule in CCAdvice.allCases {
        if let a = condition(rule, faces: faces, roll: roll) { conditions[rule] = a }
      }
    }
    // Adoption: the last hint's condition stopped holding within the window.
    if let p = pendingAdoption {
      if t - p.t > CCRules.adoptionMs {
        pendingAdoption = nil
      } else if conditions[p.advice] == nil {
        telemetry(.hintAdopted, ["advice": .string(p.advice.rawValue)], &out)
        pendingAdoption = nil
      }
    }
    for rule in CCAdvice.allCases {
      guard let a = conditions[rule] else {
        holding[rule] = nil
        continue
      }
      if let h = holding[rule], h.direction == a.direction { continue }
      holding[rule] = (t, a.direction)
    }
    if state == .hintCooldown && t < cooldownUntil { return }
    setState(faces.isEmpty ? .idle : .analyzing, &out)
    guard !faces.isEmpty else { return }
    // The most important rule whose condition holds long enough speaks, if the budgets allow.
    guard let rule = options.priority.order.first(where: { r in holding[r].map { t - $0.since >= CCRules.holdMs } ?? false }),
      let advice = conditions[rule], allowed(rule, at: t)
    else { return }
    out.append(.hint(advice))
    telemetry(.hintShown, ["advice": .string(rule.rawValue)], &out)
    shown.append((t, rule))
    shown.removeAll { t - $0.t >= CCRules.minuteMs }
    holding[rule] = (t, advice.direction)
    pendingAdoption = (t, rule)
    lastHint = (t, rule)
    cooldownUntil = t + CCRules.cooldownMs
    setState(.hintCooldown, &out)
  }

  /// The budgets: at most 2 hints in any second, the same type 3 times in any 10 s, and the
  /// thermal state's per-minute count in any 60 s (windows end at `t`, half-open).
  func allowed(_ rule: CCAdvice, at t: Int64) -> Bool {
    if options.has(.noRateLimit) { return true }
    let second = shown.filter { t - $0.t < CCRules.secondMs }.count
    let same = shown.filter { $0.advice == rule && t - $0.t < CCRules.sameTypeWindowMs }.count
    let minute = shown.filter { t - $0.t < CCRules.minuteMs }.count
    return second < CCRules.perSecond && same < CCRules.sameTypeMax && minute < thermal.hintsPerMinute
  }

  /// The advice rule `rule` gives on this frame, nil when it is content.
  func condition(_ rule: CCAdvice, faces: [CCUIFace], roll: Double) -> GuidanceAdvice? {
    let primary = faces[0]
    switch rule {
    case .template:
      guard let p = templatePoint else { return nil }
      let dx = p.x - primary.centerX
      let dy = p.y - visibleY(primary.centerY)
      guard max(abs(dx), abs(dy)) > CCRules.templateTolerance else { return nil }
      if abs(dx) >= abs(dy) { return GuidanceAdvice(advice: .template, direction: dx > 0 ? "right" : "left", value: dx) }
      return GuidanceAdvice(advice: .template, direction: dy > 0 ? "down" : "up", value: dy)
    case .headroom:
      let edge = faces.map { options.has(.headroomFromBottom) ? $0.bottom : $0.top }.min() ?? 0
      let room = visibleY(edge)
      if room < CCRules.headroomMin { return GuidanceAdvice(advice: .headroom, direction: "more", value: room) }
      if room > CCRules.headroomMax { return GuidanceAdvice(advice: .headroom, direction: "less", value: room) }
      return nil
    case .horizon:
      guard abs(roll) > CCRules.horizonHintDeg else { return nil }
      return GuidanceAdvice(advice: .horizon, direction: roll > 0 ? "counterclockwise" : "clockwise", value: roll)
    case .leadSpace:
      guard abs(primary.yaw) >= CCRules.leadYawDeg else { return nil }
      let right = 1 - primary.right
      let left = primary.left
      let lead = primary.yaw > 0 ? right - left : left - right
      if lead < CCRules.leadMin { return GuidanceAdvice(advice: .leadSpace, direction: "more", value: lead) }
      if lead > CCRules.leadMax { return GuidanceAdvice(advice: .leadSpace, direction: "less", value: lead) }
      return nil
    case .thirds:
      let lines = [1.0 / 3, 2.0 / 3]
      // Equally near both (the centre, up to rounding): the left line.
      let line = abs(primary.noseX - lines[0]) <= abs(primary.noseX - lines[1]) + 1e-9 ? lines[0] : lines[1]
      let off = primary.noseX - line
      guard abs(off) > CCRules.thirdsTolerance else { return nil }
      return GuidanceAdvice(advice: .thirds, direction: off > 0 ? "left" : "right", value: off)
    }
  }

  /// A full-frame y as a share of the visible (letterboxed) frame height.
  func visibleY(_ y: Double) -> Double {
    let b = options.has(.letterboxIgnored) ? 0 : band
    return (y - b) / (1 - 2 * b)
  }

  /// Level lines (shown within ±20° while rotating at most 30°/s) and the haptic on reaching
  /// level (within 1°) from beyond 5°.
  mutating func horizonMarks(roll: Double, rate: Double, _ out: inout [CCOutput]) {
    let visible = abs(roll) <= CCRules.levelLinesDeg && abs(rate) <= CCRules.levelLinesRateMax
    if visible != levelLines {
      levelLines = visible
      out.append(.levelLines(visible: visible))
    }
    let nowLevel = abs(roll) <= CCRules.levelDeg
    if nowLevel {
      if !level && maxOffLevel > CCRules.hapticFromDeg { out.append(.haptic) }
      maxOffLevel = 0
    } else {
      maxOffLevel = max(maxOffLevel, abs(roll))
    }
    level = nowLevel
  }
}
