import EngineIO

/// Everything one evaluation may read, besides the cue's own plan. One per evaluation,
/// shared by every cue (a class: the per-cue evaluations hold a reference, not a copy). The
/// engine keeps its T0 context and rewrites it for the next evaluation (`reset`) while nothing
/// else holds it, so the per-frame path allocates none (issue 38 item 1); unchecked `Sendable`
/// for that reason: it is written only through a uniquely held reference.
final class MetricContext: @unchecked Sendable {
  private(set) var frame: CanonicalFrame
  /// The subject's face (§3.4.6), canonical: `frame.faces[subjectIndex]`, or a face given as is.
  var face: FaceObservation? { givenFace ?? subjectIndex.map { frame.faces[$0] } }
  /// The subject as an index into `frame.faces` (the engine's T0 contexts): no copy of the
  /// face is kept, since these contexts read only its points (`facePoints`).
  private(set) var subjectIndex: Int?
  private var givenFace: FaceObservation?
  private(set) var options: MetricOptions
  /// Latest T1-side scalars (white balance, motion, registration, `frame_scalars`).
  private(set) var scalars: [String: Double]
  /// Latest luma plane (T1).
  private(set) var luma: LumaFrame?
  /// Summed-area tables of `luma` when the caller keeps them across evaluations (T1 ticks);
  /// nil = compute the pixel metrics from the plane.
  private(set) var lumaTables: LumaTables?
  /// Reads of `luma` remembered across replays (`LumaReadMemo`), consulted before computing.
  private(set) var lumaSlot: LumaReadMemo.Slot?
  private(set) var roiCoefficients: ROICoefficients
  /// Targets of the current reference (withRef).
  private(set) var targets: [String: Double]
  /// Apply `frame_scalars` overrides (T1 evaluations).
  private(set) var overrides: Bool
  /// The engine's registers for evaluations on this context (nil: each evaluation allocates
  /// its own on the stack), kept alive by `registerFile`; read as a pointer, which costs no
  /// retain per evaluation.
  private(set) var registers: UnsafeMutablePointer<MetricValue>?
  private(set) var registerCapacity: Int
  private(set) var registerFile: RegisterFile?
  /// Pixel metrics read from `luma` on this context so far (not `frame_scalars` overrides):
  /// with `pixelWork`, what the engine's choice to build a plane's tables counts (`prepareLumaTables`).
  var pixelReads = 0
  /// The weighted pixels those reads summed from `luma` without tables (`PixelMetrics.directWork`).
  var pixelWork = 0
  /// Why the last formula evaluation on this context (`FormulaEvaluation.scalar` or
  /// `assignment`) has no value: its first failing input (ENGINE §3.4.1 reason strings).
  private(set) var failure: String?

  /// Records `reason` unless the evaluation already failed (the first failure wins).
  @inline(__always) func fail(_ reason: String) {
    if failure == nil { failure = reason }
  }

  /// Forgets the last evaluation's failure (a store only when there is one).
  @inline(__always) func clearFailure() {
    if failure != nil { failure = nil }
  }

  /// The parts of `face` the formulas and the confidence gate read, taken out once here:
  /// reading them through `face` copied the whole observation per node. Read its fields in
  /// place (`ctx.facePoints.bbox`), not through a local copy.
  private(set) var facePoints: FacePoints

  /// `subject` (an index into `frame.faces`) names the face instead of `face` when given.
  init(
    frame: CanonicalFrame, face: FaceObservation? = nil, subject: Int? = nil, options: MetricOptions,
    scalars: [String: Double] = [:],
    luma: LumaFrame? = nil, roiCoefficients: ROICoefficients = .standard, targets: [String: Double] = [:],
    overrides: Bool = false, lumaTables: LumaTables? = nil, lumaSlot: LumaReadMemo.Slot? = nil, registers: RegisterFile? = nil
  ) {
    self.lumaSlot = lumaSlot
    registerFile = registers
    self.registers = registers?.values
    registerCapacity = registers?.capacity ?? 0
    self.lumaTables = lumaTables
    self.frame = frame
    subjectIndex = subject
    givenFace = subject == nil ? face : nil
    facePoints = Self.points(frame, face: face, subject: subject, roiCoefficients)
    self.options = options
    self.scalars = scalars
    self.luma = luma
    self.roiCoefficients = roiCoefficients
    self.targets = targets
    self.overrides = overrides
  }

  /// This context made equal to `MetricContext(frame:subject:options:roiCoefficients:targets:registers:)`
  /// (a T0 context), in place. Only through a reference nothing else holds.
  ///
  /// The frame moves in (`consuming`); the context holds it as the engine's latest frame.
  func reset(
    frame: consuming CanonicalFrame, subject: Int?, options: MetricOptions, roiCoefficients: ROICoefficients,
    targets: [String: Double], registers: RegisterFile?
  ) {
    registerFile = registers
    self.registers = registers?.values
    registerCapacity = registers?.capacity ?? 0
    lumaTables = nil
    lumaSlot = nil
    facePoints = Self.points(frame, face: nil, subject: subject, roiCoefficients)
    self.frame = consume frame
    holdsLatestFrame = true
    subjectIndex = subject
    givenFace = nil
    self.options = options
    if !scalars.isEmpty { scalars = [:] }
    luma = nil
    self.roiCoefficients = roiCoefficients
    self.targets = targets
    overrides = false
    pixelReads = 0
    pixelWork = 0
  }

  /// Lets go of the frame (an empty one stands in), so the engine can canonicalize the next
  /// result into the arrays of the last one in place while it keeps this context; and of the
  /// registers, which the engine lends to the next evaluation only while nothing else holds
  /// them (`uniqueRegisters`).
  func releaseFrame() {
    frame = CanonicalFrame.none
    holdsLatestFrame = false
    releaseRegisters()
  }

  private func releaseRegisters() {
    registerFile = nil
    registers = nil
    registerCapacity = 0
  }

  /// Whether ``frame`` is the engine's latest frame, which this context then holds alone (set
  /// by ``reset(frame:subject:options:roiCoefficients:targets:registers:)``, moved out by
  /// ``takeFrame()``).
  private(set) var holdsLatestFrame = false

  /// The frame moved out (swapped with an empty one: no copy, no retain), the registers let go;
  /// only a `reset` or `releaseFrame` may follow.
  func takeFrame() -> CanonicalFrame {
    var taken = CanonicalFrame.empty
    swap(&taken, &frame)
    holdsLatestFrame = false
    releaseRegisters()
    return taken
  }

  private static func points(
    _ frame: CanonicalFrame, face: FaceObservation?, subject: Int?, _ roiCoefficients: ROICoefficients
  ) -> FacePoints {
    if let subject {
      return FacePoints(frame.faces[subject], minLandmarkConfidence: roiCoefficients.minLandmarkConfidence)
    }
    return FacePoints(face, minLandmarkConfidence: roiCoefficients.minLandmarkConfidence)
  }
}
