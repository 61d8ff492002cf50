@testable import JustPhotoEngine
import EngineIO
import Testing


/// ROI geometry (ENGINE §2.7, §8 G-9/G-11) and the T1 pixel metrics over a luma plane (§2.11),
/// checked against values computed by hand on small synthetic planes.
@Suite("ROIs and pixel metrics (ENGINE §2.7, §2.11)")
struct PixelMetricsTests {
  // MARK: Fixtures

  /// A w×h plane whose pixel (x, y) is `value(x, y)`.
  static func plane(_ w: Int, _ h: Int, _ value: (Int, Int) -> Int) -> LumaFrame {
    var data: [UInt8] = []
    for y in 0..<h {
      for x in 0..<w { data.append(UInt8(value(x, y))) }
    }
    return LumaFrame(frame: 1, w: w, h: h, data: data)
  }

  /// 8×8 with v = 8y + x (0…63), so every pixel is identifiable.
  static let ramp = plane(8, 8) { x, y in 8 * y + x }

  static func isClose(_ a: Rect?, _ b: Rect, tolerance: Double = 1e-12) -> Bool {
    guard let a else { return false }
    return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.w - b.w) <= tolerance
      && abs(a.h - b.h) <= tolerance
  }

  static func rects(_ r: ROIRects?) -> [Rect]? {
    guard case .success(let rects)? = r else { return nil }
    return rects
  }

  static func reason(_ r: ROIRects?) -> String? {
    guard case .failure(let e)? = r else { return nil }
    return e.reason
  }

  static func eye(_ x: Double, _ y: Double, conf: Double? = nil, precMax: Double? = 0.008, ear: Double? = nil)
    -> EyePoint
  {
    EyePoint(x: x, y: y, conf: conf, precMax: precMax, ear: ear)
  }

  static func face(_ bbox: Rect, left: EyePoint? = nil, right: EyePoint? = nil) -> FaceObservation {
    FaceObservation(bbox: bbox, leftEye: left, rightEye: right)
  }

  /// Padding 0.25 makes every faceROI edge below a dyadic fraction (exact in binary).
  static let dyadic = ROICoefficients(
    facePaddingX: 0.25, facePaddingY: 0.25, eyeWidthFactor: 2.2, eyeHeightFactor: 1.2, minLandmarkConfidence: 0.5)

  // MARK: §2.11 pixel rectangle

  @Test("§2.11 steps 2–3: floor the min edge, ceil the max edge (pixels cut by the ROI count)")
  func pixelRectRoundsOutwards() {
    #expect(
      PixelMetrics.pixelRect(Rect(x: 0.25, y: 0.375, w: 0.375, h: 0.25), width: 8, height: 8)
        == PixelRect(x: 2, y: 3, xEnd: 5, yEnd: 5))
    // 0.3·8 = 2.4 → 2; 0.6·8 = 4.8 → 5.
    #expect(
      PixelMetrics.pixelRect(Rect(x: 0.3, y: 0.3, w: 0.3, h: 0.3), width: 8, height: 8)
        == PixelRect(x: 2, y: 2, xEnd: 5, yEnd: 5))
    // Step 1: the part outside [0,1]² is cut away before mapping.
    #expect(
      PixelMetrics.pixelRect(Rect(x: -0.5, y: -0.5, w: 1, h: 1), width: 8, height: 8)
        == PixelRect(x: 0, y: 0, xEnd: 4, yEnd: 4))
    #expect(
      PixelMetrics.pixelRect(Rect(x: 0, y: 0, w: 1, h: 1), width: 8, height: 6)
        == PixelRect(x: 0, y: 0, xEnd: 8, yEnd: 6))
  }

  @Test("§2.11 steps 1 and 4: an empty ROI or a rect under 2 pixels wide/high is unavailable")
  func pixelRectNeedsTwoPixelsEachWay() {
    // Exactly one pixel column (2…3) → unavailable.
    #expect(PixelMetrics.pixelRect(Rect(x: 0.25, y: 0, w: 0.125, h: 1), width: 8, height: 8) == nil)
    // One pixel row.
    #expect(PixelMetrics.pixelRect(Rect(x: 0, y: 0.5, w: 1, h: 0.1), width: 8, height: 8) == nil)
    // A sliver at the right edge: x0 = ⌊7.92⌋ = 7, x1 = 8 → 1 pixel.
    #expect(PixelMetrics.pixelRect(Rect(x: 0.99, y: 0, w: 0.01, h: 1), width: 8, height: 8) == nil)
    // A sliver thinner than a pixel that straddles a pixel edge covers 2 pixels: 2.4 → 2, 3.2 → 4.
    #expect(
      PixelMetrics.pixelRect(Rect(x: 0.3, y: 0, w: 0.1, h: 1), width: 8, height: 8)
        == PixelRect(x: 2, y: 0, xEnd: 4, yEnd: 8))
    // Zero width, and a rect wholly outside the frame: empty intersection.
    #expect(PixelMetrics.pixelRect(Rect(x: 0.5, y: 0, w: 0, h: 1), width: 8, height: 8) == nil)
    #expect(PixelMetrics.pixelRect(Rect(x: 1, y: 0, w: 0.5, h: 1), width: 8, height: 8) == nil)
    #expect(PixelMetrics.meanLuma(Self.ramp, [Rect(x: 0.25, y: 0, w: 0.125, h: 1)]) == nil)
  }

  // MARK: §2.11 meanLuma

  @Test("§2.11 meanLuma = Σv/(N·255): whole plane and a 3×2 rect of the 8×8 ramp")
  func meanLumaByHand() {
    #expect(PixelMetrics.meanLuma(Self.ramp, [ROIGeometry.unit]) == 31.5 / 255)
    // Pixels x 2…4, y 3…4: 26, 27, 28, 34, 35, 36 → mean 31.
    #expect(PixelMetrics.meanLuma(Self.ramp, [Rect(x: 0.25, y: 0.375, w: 0.375, h: 0.25)]) == 31.0 / 255)
  }

  @Test("§2.11 rect sets pool by pixel count; overlaps count twice; unmappable rects are skipped")
  func meanLumaPoolsByPixelCount() {
    let corner = Rect(x: 0, y: 0, w: 0.25, h: 0.25)  // 0, 1, 8, 9 → Σ 18, N 4
    let band = Rect(x: 0.5, y: 0.75, w: 0.5, h: 0.25)  // 52…55, 60…63 → Σ 460, N 8
    #expect(PixelMetrics.meanLuma(Self.ramp, [corner, band]) == 478.0 / (12 * 255))
    // Overlap: x 0…3, y 0…1 → Σ 44, N 8, plus the corner again (no dedup).
    let wide = Rect(x: 0, y: 0, w: 0.5, h: 0.25)
    #expect(PixelMetrics.meanLuma(Self.ramp, [corner, wide]) == 62.0 / (12 * 255))
    // A one-column rect yields no pixels and is skipped; only such rects → unavailable.
    let sliver = Rect(x: 0.25, y: 0, w: 0.125, h: 1)
    #expect(PixelMetrics.meanLuma(Self.ramp, [sliver, corner]) == 18.0 / (4 * 255))
    #expect(PixelMetrics.meanLuma(Self.ramp, [sliver, sliver]) == nil)
    #expect(PixelMetrics.meanLuma(Self.ramp, []) == nil)
  }

  @Test("§2.11 a malformed plane (too few bytes, or under 2×2) gives no metric")
  func malformedPlaneIsUnavailable() {
    let short = LumaFrame(frame: 1, w: 4, h: 4, data: [UInt8](repeating: 9, count: 15))
    #expect(PixelMetrics.meanLuma(short, [ROIGeometry.unit]) == nil)
    let line = LumaFrame(frame: 1, w: 4, h: 1, data: [UInt8](repeating: 9, count: 4))
    #expect(PixelMetrics.highlightClipPct(line, [ROIGeometry.unit]) == nil)
  }

  // MARK: §2.11 clip percentages

  @Test("§2.11 highlightClipPct counts v ≥ 250 (249 no, 250 yes); shadowClipPct v ≤ 20 (20 yes, 21 no)")
  func clipThresholds() {
    let values = [249, 250, 251, 255, 20, 21, 19, 0] + [Int](repeating: 128, count: 8)
    let frame = Self.plane(4, 4) { x, y in values[4 * y + x] }
    #expect(PixelMetrics.highlightClipPct(frame, [ROIGeometry.unit]) == 3.0 / 16)
    #expect(PixelMetrics.shadowClipPct(frame, [ROIGeometry.unit]) == 3.0 / 16)
    // Top row only (249, 250, 251, 255): 3 of 4 clipped; bottom half: none.
    #expect(PixelMetrics.highlightClipPct(frame, [Rect(x: 0, y: 0, w: 1, h: 0.5)]) == 3.0 / 8)
    #expect(PixelMetrics.highlightClipPct(frame, [Rect(x: 0, y: 0.5, w: 1, h: 0.5)]) == 0)
    let at249 = Self.plane(2, 2) { _, _ in 249 }
    let at21 = Self.plane(2, 2) { _, _ in 21 }
    #expect(PixelMetrics.highlightClipPct(at249, [ROIGeometry.unit]) == 0)
    #expect(PixelMetrics.shadowClipPct(at21, [ROIGeometry.unit]) == 0)
  }

  // MARK: §2.11 Sobel edge density

  @Test("§2.11 sobelEdgeDensity on a vertical 0|255 step: the 2 columns beside it, 16 of 64 interior pixels")
  func sobelVerticalStep() {
    let step = Self.plane(10, 10) { x, _ in x < 5 ? 0 : 255 }
    #expect(PixelMetrics.sobelEdgeDensity(step, [ROIGeometry.unit]) == 0.25)
    let flat = Self.plane(10, 10) { _, _ in 200 }
    #expect(PixelMetrics.sobelEdgeDensity(flat, [ROIGeometry.unit]) == 0)
    // Horizontal step: the same count by symmetry.
    let horizontal = Self.plane(10, 10) { _, y in y < 5 ? 0 : 255 }
    #expect(PixelMetrics.sobelEdgeDensity(horizontal, [ROIGeometry.unit]) == 0.25)
  }

  @Test("§2.11 Sobel threshold 0.25 on v/255: a step of 16 (|g| = 64/255) counts, 15 (60/255) does not")
  func sobelThreshold() {
    let step16 = Self.plane(10, 10) { x, _ in x < 5 ? 100 : 116 }
    let step15 = Self.plane(10, 10) { x, _ in x < 5 ? 100 : 115 }
    #expect(PixelMetrics.sobelEdgeDensity(step16, [ROIGeometry.unit]) == 0.25)
    #expect(PixelMetrics.sobelEdgeDensity(step15, [ROIGeometry.unit]) == 0)
  }

  @Test("§2.11 Sobel uses only interior pixels of each rect; a rect under 3 pixels has none")
  func sobelInteriorPerRect() {
    let step = Self.plane(8, 8) { x, _ in x < 4 ? 0 : 255 }
    // Halves split at the edge (columns 0…3 and 4…7): neither half's interior sees across it.
    let halves = [Rect(x: 0, y: 0, w: 0.5, h: 1), Rect(x: 0.5, y: 0, w: 0.5, h: 1)]
    #expect(PixelMetrics.sobelEdgeDensity(step, halves) == 0)
    // Columns 2…5 (interior 3…4, rows 1…6): every interior pixel is an edge.
    #expect(PixelMetrics.sobelEdgeDensity(step, [Rect(x: 0.25, y: 0, w: 0.5, h: 1)]) == 1)
    // Columns 3…4: two pixels wide, no interior → unavailable (meanLuma still has pixels).
    #expect(PixelMetrics.sobelEdgeDensity(step, [Rect(x: 0.375, y: 0, w: 0.25, h: 1)]) == nil)
    #expect(PixelMetrics.meanLuma(step, [Rect(x: 0.375, y: 0, w: 0.25, h: 1)]) == 0.5)
  }

  // MARK: §2.7 faceROI

  @Test("§2.7 faceROI = bbox padded 15 % per side: (x−0.15w, y−0.15h, 1.3w, 1.3h)")
  func faceROIPadding() {
    let rois = ROIGeometry.rois(Self.face(Rect(x: 0.4, y: 0.3, w: 0.2, h: 0.2)))
    #expect(Self.isClose(rois.faceROI, Rect(x: 0.37, y: 0.27, w: 0.26, h: 0.26)))
  }

  @Test("§2.7 faceROI is intersected with [0,1]² at the frame edge; wholly outside → missing_faceROI")
  func faceROIClampsAtEdge() {
    // Raw (−0.03, 0.87, 0.26, 0.26) → (0, 0.87, 0.23, 0.13).
    let rois = ROIGeometry.rois(Self.face(Rect(x: 0, y: 0.9, w: 0.2, h: 0.2)))
    #expect(Self.isClose(rois.faceROI, Rect(x: 0, y: 0.87, w: 0.23, h: 0.13)))
    let outside = ROIGeometry.rois(Self.face(Rect(x: 1.2, y: 0.2, w: 0.1, h: 0.1)))
    #expect(outside.faceROI == nil)
    #expect(Self.reason(outside.rects(named: "faceROI")) == "missing_faceROI")
    #expect(Self.reason(ROIGeometry.rects(named: "faceROI", face: nil)) == "missing_faceROI")
  }

  // MARK: §2.7 eyeROI

  @Test("§2.7 eyeROI at eyeMid, 2.2d × 1.2d, when both eyes are confident")
  func eyeROIGeometry() {
    let f = Self.face(Rect(x: 0.3, y: 0.2, w: 0.4, h: 0.5), left: Self.eye(0.4, 0.4), right: Self.eye(0.6, 0.4))
    // d = 0.2 → w 0.44, h 0.24 around (0.5, 0.4).
    #expect(Self.isClose(ROIGeometry.rois(f).eyeROI, Rect(x: 0.28, y: 0.28, w: 0.44, h: 0.24)))
    // Clamped at the frame edge: centre (0.1, 0.05), d = 0.2 → raw (−0.12, −0.07, 0.44, 0.24).
    let edge = Self.face(Rect(x: 0, y: 0, w: 0.3, h: 0.3), left: Self.eye(0, 0.05), right: Self.eye(0.2, 0.05))
    #expect(Self.isClose(ROIGeometry.rois(edge).eyeROI, Rect(x: 0, y: 0, w: 0.32, h: 0.17)))
  }

  @Test("§2.7/G-11 eyeROI is unavailable when one eye has precMax 0.02 (> 0.012)")
  func eyeROINeedsBothEyes() {
    let bbox = Rect(x: 0.3, y: 0.2, w: 0.4, h: 0.5)
    let bad = Self.face(bbox, left: Self.eye(0.4, 0.4), right: Self.eye(0.6, 0.4, precMax: 0.02))
    let rois = ROIGeometry.rois(bad)
    #expect(rois.eyeROI == nil)
    #expect(Self.reason(rois.rects(.eyeROI)) == "missing_eyeROI")
    // The face itself is still fine.
    #expect(rois.faceROI != nil)
    // One eye missing altogether: unavailable too ([C] would keep the other eye).
    #expect(ROIGeometry.rois(Self.face(bbox, left: Self.eye(0.4, 0.4))).eyeROI == nil)
  }

  @Test("§2.7/G-11 an eye is confident iff it passes the [C] keep rule (boundaries inclusive)")
  func eyeConfidenceRule() {
    func ok(_ e: EyePoint) -> Bool { ROIGeometry.isConfident(e, minLandmarkConfidence: 0.5) }
    #expect(ok(EyePoint(x: 0.5, y: 0.5, precMax: 0.012)))
    #expect(!ok(EyePoint(x: 0.5, y: 0.5, precMax: 0.0121)))
    #expect(ok(EyePoint(x: 0.5, y: 0.5, conf: 0.5)))
    #expect(!ok(EyePoint(x: 0.5, y: 0.5, conf: 0.49)))
    // A low confidence fails even with a good precision.
    #expect(!ok(EyePoint(x: 0.5, y: 0.5, conf: 0.4, precMax: 0.005)))
    #expect(ok(EyePoint(x: 0.5, y: 0.5, precMax: 0.005, ear: 0.20)))
    #expect(!ok(EyePoint(x: 0.5, y: 0.5, precMax: 0.005, ear: 0.19)))
    // Neither precision nor confidence: no signal → not confident ([C] `hasExplicitConfidence`).
    #expect(!ok(EyePoint(x: 0.5, y: 0.5)))
    #expect(!ok(EyePoint(x: 0.5, y: 0.5, ear: 0.3)))
    #expect(!ok(EyePoint(x: 0.5, y: 0.5, conf: .nan)))
  }

  // MARK: §2.7 bgROI

  @Test("§2.7 bgROI never contains face pixels: a plane 255 inside faceROI and 0 outside has bg mean 0")
  func bgROIExcludesFace() {
    // faceROI = (0.125, 0.125, 0.75, 0.75) → pixels 2…13 of 16, exactly.
    let f = Self.face(Rect(x: 0.25, y: 0.25, w: 0.5, h: 0.5))
    let rois = ROIGeometry.rois(f, Self.dyadic)
    #expect(rois.faceROI == Rect(x: 0.125, y: 0.125, w: 0.75, h: 0.75))
    let frame = Self.plane(16, 16) { x, y in (2..<14).contains(x) && (2..<14).contains(y) ? 255 : 0 }
    let bg = Self.rects(rois.rects(.bgROI)) ?? []
    #expect(bg.count == 4)
    #expect(PixelMetrics.meanLuma(frame, bg) == 0)
    #expect(PixelMetrics.meanLuma(frame, [rois.faceROI!]) == 1)
    // The 4 bands tile the frame minus the face: 256 − 144 pixels.
    #expect(PixelMetrics.pixelRects(bg, in: frame).map(\.count).reduce(0, +) == 112)
  }

  @Test("§2.7 bgROI bands: above/below full width, left/right at face height; thin bands dropped")
  func bgROIBands() {
    let rois = ROIGeometry.rois(Self.face(Rect(x: 0.25, y: 0.25, w: 0.5, h: 0.5)), Self.dyadic)
    #expect(
      Self.rects(rois.rects(.bgROI)) == [
        Rect(x: 0, y: 0, w: 1, h: 0.125), Rect(x: 0, y: 0.875, w: 1, h: 0.125),
        Rect(x: 0, y: 0.125, w: 0.125, h: 0.75), Rect(x: 0.875, y: 0.125, w: 0.125, h: 0.75),
      ])
    // Face touching the left and top edges: only the below band and the right band remain.
    let corner = ROIGeometry.rois(Self.face(Rect(x: 0, y: 0, w: 0.5, h: 0.5)), Self.dyadic)
    #expect(
      Self.rects(corner.rects(.bgROI)) == [
        Rect(x: 0, y: 0.625, w: 1, h: 0.375), Rect(x: 0.625, y: 0, w: 0.375, h: 0.625),
      ])
    // No face: the whole frame. Face filling the frame: nothing left.
    #expect(Self.rects(ROIGeometry.rects(named: "bgROI", face: nil)) == [ROIGeometry.unit])
    let full = ROIGeometry.rois(Self.face(Rect(x: 0, y: 0, w: 1, h: 1)))
    #expect(Self.reason(full.rects(.bgROI)) == "empty_bgROI")
  }

  // MARK: §2.7 / G-9 derived ROIs

  @Test("§2.7/G-9 derived ROIs: face halves, BG_Ring_ROI, upperBGROI, skyROI, top10pctFrame")
  func derivedROIs() {
    let rois = ROIGeometry.rois(Self.face(Rect(x: 0.25, y: 0.25, w: 0.5, h: 0.5)), Self.dyadic)
    #expect(Self.rects(rois.rects(named: "faceLeftHalf")) == [Rect(x: 0.125, y: 0.125, w: 0.375, h: 0.75)])
    #expect(Self.rects(rois.rects(named: "faceRightHalf")) == [Rect(x: 0.5, y: 0.125, w: 0.375, h: 0.75)])
    #expect(rois.rects(named: "BG_Ring_ROI") == rois.rects(named: "bgROI"))
    #expect(Self.rects(rois.rects(named: "upperBGROI")) == [Rect(x: 0, y: 0, w: 1, h: 0.125)])
    #expect(Self.rects(rois.rects(named: "top10pctFrame")) == [Rect(x: 0, y: 0, w: 1, h: 0.10)])
    // skyROI: top third minus the face — above band, then the left/right bands down to 1/3.
    let sky = Self.rects(rois.rects(named: "skyROI")) ?? []
    #expect(sky.count == 3)
    #expect(sky.first == Rect(x: 0, y: 0, w: 1, h: 0.125))
    #expect(Self.isClose(sky.count == 3 ? sky[1] : nil, Rect(x: 0, y: 0.125, w: 0.125, h: 1.0 / 3 - 0.125)))
    #expect(Self.isClose(sky.count == 3 ? sky[2] : nil, Rect(x: 0.875, y: 0.125, w: 0.125, h: 1.0 / 3 - 0.125)))
    #expect(rois.rects(named: "noSuchROI") == nil)
  }

  @Test("§2.7/G-9 face-relative ROIs need a face; skyROI and top10pctFrame do not")
  func derivedROIsWithoutFace() {
    let none = ROIGeometry.rois(nil)
    #expect(Self.reason(none.rects(.faceLeftHalf)) == "missing_faceROI")
    #expect(Self.reason(none.rects(.upperBGROI)) == "missing_faceROI")
    #expect(Self.rects(none.rects(.skyROI)) == [Rect(x: 0, y: 0, w: 1, h: 1.0 / 3)])
    #expect(Self.rects(none.rects(.top10pctFrame)) == [Rect(x: 0, y: 0, w: 1, h: 0.10)])
    // Face touching the top edge: no band above it.
    let top = ROIGeometry.rois(Self.face(Rect(x: 0.25, y: 0, w: 0.5, h: 0.5)), Self.dyadic)
    #expect(Self.reason(top.rects(.upperBGROI)) == "empty_upperBGROI")
  }

  @Test("§2.11 faceHalfDiff ingredients: left half bright, right half dark on a 16×16 plane")
  func faceHalvesOnPlane() {
    let rois = ROIGeometry.rois(Self.face(Rect(x: 0.25, y: 0.25, w: 0.5, h: 0.5)), Self.dyadic)
    let frame = Self.plane(16, 16) { x, _ in x < 8 ? 204 : 51 }
    let left = Self.rects(rois.rects(.faceLeftHalf)) ?? []
    let right = Self.rects(rois.rects(.faceRightHalf)) ?? []
    #expect(PixelMetrics.meanLuma(frame, left) == 0.8)
    #expect(PixelMetrics.meanLuma(frame, right) == 0.2)
  }

  @Test("§2.7/G-9 every ROI named in a reference cue's roisUsed resolves to a known ROI")
  func everyUsedROIIsKnown() {
    let used = Fixture.reference.cues.flatMap { $0.metric.roisUsed ?? [] }
    #expect(used.count >= 13)
    let face = Self.face(Rect(x: 0.3, y: 0.2, w: 0.4, h: 0.5), left: Self.eye(0.4, 0.4), right: Self.eye(0.6, 0.4))
    let rois = ROIGeometry.rois(face)
    for name in used {
      #expect(Self.rects(rois.rects(named: name)) != nil, "\(name)")
    }
    #expect(ROIName.allCases.map(\.rawValue).contains("BG_Ring_ROI"))
  }

  // MARK: §2.7 coefficients

  @Test("§2.7 coefficients: sizeRule leading number, PS values equal the defaults, fallbacks")
  func coefficients() {
    #expect(ROICoefficients.sizeFactor("2.2 * interOcularDistance") == 2.2)
    #expect(ROICoefficients.sizeFactor("1.2*interOcularDistance") == 1.2)
    #expect(ROICoefficients.sizeFactor("interOcularDistance * 2") == nil)
    #expect(ROICoefficients.sizeFactor("2.2") == nil)
    #expect(ROICoefficients(Fixture.reference) == .standard)
    // Values from the spec are used …
    var edited = Fixture.reference.rois
    edited.faceROI?.paddingX = 0.2
    edited.eyeROI?.sizeRuleW = "3 * interOcularDistance"
    let k = ROICoefficients(rois: edited, minLandmarkConfidence: 0.7)
    #expect(k.facePaddingX == 0.2 && k.facePaddingY == 0.15 && k.eyeWidthFactor == 3 && k.eyeHeightFactor == 1.2)
    #expect(k.minLandmarkConfidence == 0.7)
    // … and absent sections, a negative padding, an unparsable rule or conf ≤ 0 fall back ([C]).
    var broken = Fixture.reference.rois
    broken.faceROI?.paddingY = -0.1
    broken.eyeROI?.sizeRuleH = "interOcularDistance"
    #expect(ROICoefficients(rois: broken, minLandmarkConfidence: 0) == .standard)
    var absent = Fixture.reference.rois
    absent.faceROI = nil
    absent.eyeROI = nil
    #expect(ROICoefficients(rois: absent, minLandmarkConfidence: 1.5).minLandmarkConfidence == 1)
    #expect(ROICoefficients(rois: absent, minLandmarkConfidence: 0.5) == .standard)
  }
}
