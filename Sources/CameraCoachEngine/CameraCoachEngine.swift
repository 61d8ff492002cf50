import CanonicalJSON

/// Camera Coach (docs/CAMERACOACH.md): a frame analyser (faces from the detector, device roll
/// and rotation rate) feeding a guidance machine `idle → analyzing → hint_cooldown` that gives
/// one hint at a time as a `GuidanceAdvice`. Pure: typed input and its time in, trace lines
/// out; no clock, no I/O, no randomness.
public struct CameraCoachEngine: Sendable {
  public let options: CCOptions
  var session = false
  var camera = CCCamera.back
  var band = 0.0
  var state = CCState.idle
  var thermal = CCThermal.nominal
  var memory = CCMemory.normal
  var consent = false
  var templatePoint: (x: Double, y: Double)?
  var frameCount = 0
  /// When each rule's condition started holding (with the direction it holds in).
  var holding: [CCAdvice: (since: Int64, direction: String)] = [:]
  /// Hints shown: time and type, oldest first (kept for the last minute).
  var shown: [(t: Int64, advice: CCAdvice)] = []
  var cooldownUntil: Int64 = 0
  /// The last hint, until adopted or past the adoption window.
  var pendingAdoption: (t: Int64, advice: CCAdvice)?
  /// The last hint, for the one-shot success.
  var lastHint: (t: Int64, advice: CCAdvice)?
  var levelLines = false
  var level = true
  var maxOffLevel = 0.0

  /// An engine with `options`.
  public init(options: CCOptions = CCOptions()) { self.options = options }

  /// Called once at t = 0: the machine starts idle.
  public mutating func start() -> CCStep {
    var step = CCStep()
    step.outputs.append(.state(.idle))
    return step
  }

  /// Handles one input at `t`.
  public mutating func handle(_ input: CCInput, at t: Int64) -> CCStep {
    var out: [CCOutput] = []
    switch input {
    case .sessionStart(let cam, let b):
      // A new session starts from scratch; the device's states and the consent stay.
      if state != .idle { out.append(.state(.idle)) }
      if levelLines { out.append(.levelLines(visible: false)) }
      let (keptConsent, keptThermal, keptMemory, keptTemplate) = (consent, thermal, memory, templatePoint)
      self = CameraCoachEngine(options: options)
      (consent, thermal, memory, templatePoint) = (keptConsent, keptThermal, keptMemory, keptTemplate)
      session = true
      camera = cam
      band = b
      telemetry(.sessionStart, ["camera": .string(cam.rawValue)], &out)
    case .sessionStop:
      guard session else { return ignored(input, "no_session") }
      session = false
      holding = [:]
      setState(.idle, &out)
      if levelLines {
        levelLines = false
        out.append(.levelLines(visible: false))
      }
      telemetry(.sessionStop, [:], &out)
    case .frame(let faces, let roll, let rate):
      guard session else { return ignored(input, "no_session") }
      frameCount += 1
      guard (frameCount - 1) % thermal.stride == 0 else { break }
      analyze(faces: faces, roll: roll, rate: rate, at: t, &out)
    case .template(let x, let y): templatePoint = (x, y)
    case .templateClear: templatePoint = nil
    case .shutter: telemetry(.shutter, [:], &out)
    case .photoKept:
      telemetry(.photoKept, [:], &out)
      if let h = lastHint, t - h.t <= CCRules.oneShotMs {
        out.append(.oneShot(advice: h.advice, hintT: h.t, keptT: t))
        lastHint = nil
      }
    case .fpsSample(let fps): telemetry(.fpsSample, ["fps": .number(CCOutput.round6(fps))], &out)
    case .thermalSample(let s):
      telemetry(.thermalSample, ["state": .string(s.rawValue)], &out)
      if s != thermal {
        thermal = s
        out.append(limits)
      }
    case .memoryPressure(let m):
      if m != memory {
        memory = m
        out.append(limits)
      }
    case .consentChanged(let g):
      consent = g
      out.append(.telemetry(.consentChanged, ["granted": .bool(g)]))
    }
    var step = CCStep()
    step.outputs = out
    return step
  }

  var limits: CCOutput { .limits(stride: thermal.stride, perMinute: thermal.hintsPerMinute, facesMax: memory.facesMax) }

  func ignored(_ input: CCInput, _ reason: String) -> CCStep {
    var step = CCStep()
    step.outputs = [.ignored(input: input.kind.rawValue, reason: reason)]
    return step
  }

  func telemetry(_ e: CCTelemetry, _ fields: JSONObject, _ out: inout [CCOutput]) {
    if consent { out.append(.telemetry(e, fields)) }
  }

  mutating func setState(_ s: CCState, _ out: inout [CCOutput]) {
    guard s != state else { return }
    state = s
    out.append(.state(s))
  }
}
