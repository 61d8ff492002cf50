import CanonicalJSON
import EngineIO
import Foundation
import JustPhotoIO
@testable import Recording
import Testing


/// The lanes of `jprec-events/2` (docs/FORMAT-jprec.md §5.6): the same values as
/// `jprec-events/1`, each in the stream pair of its lane; files of both encodings read.
@Suite struct LaneEncodingTests {
  static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
  static let landmarksKind = KindTable.index(of: JustPhotoEvents.kindTable)[InputPayload.landmarksKind]!

  @Test func eachLaneReadsBackItsOwnValues() throws {
    var w = ByteWriter(encoding: .v2)
    let values: [UInt64] = [0, 1, 127, 128, 16383, 16384, 1 << 35, UInt64.max]
    for (i, v) in values.enumerated() {
      for lane in [Lane.events, .jointXY, .jointConf, .faces] { w.varint(v &+ UInt64(lane.rawValue) &* UInt64(i), lane) }
    }
    w.zigzag(Int64.min, .jointXY)
    w.raw([7, 8, 9])
    let (payload, ends) = w.segmentedPayload()
    #expect(ends.count == 2 * Lane.count && ends.last == payload.count)
    #expect(w.payloadCount == payload.count)
    try payload.withUnsafeBytes { b in
      var lanes = try ByteReader.lanes(b, count: Lane.count)
      for (i, v) in values.enumerated() {
        for lane in [Lane.events, .jointXY, .jointConf, .faces] {
          #expect(try lanes[lane.rawValue].varint() == v &+ UInt64(lane.rawValue) &* UInt64(i))
        }
      }
      #expect(try lanes[Lane.jointXY.rawValue].zigzag() == Int64.min)
      #expect(try lanes[0].bytes(3) == [7, 8, 9])
      for l in lanes { #expect(l.atEnd) }
      #expect(throws: CodecError.self) { try lanes[Lane.faces.rawValue].varint() }
    }
    // jprec-events/1 puts every lane in the one stream pair, in the order written.
    var one = ByteWriter(encoding: .v1)
    var plain = ByteWriter(encoding: .v1)
    for v in values {
      one.varint(v, .jointConf)
      plain.varint(v)
    }
    #expect(one.payload() == plain.payload())
    #expect(one.lanes.count == 1)
  }

  /// A chunk filled to the writer's largest limit, stream lengths in front, is within the
  /// reader's bound.
  @Test func theLargestChunkLimitLeavesRoomForTheStreamLengths() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let rec = try Recorder(
      path: dir.appendingPathComponent("big.jprec").path, header: ["format": "jp-replay/1"], chunkRawLimit: .max,
      definitions: JustPhotoEvents.self)
    #expect(rec.chunkRawLimit + ContainerLimits.streamLengthsBytesMax <= ContainerLimits.chunkRawBytesMax)
    var w = ByteWriter()
    for lane in [Lane.events, .jointXY, .jointConf, .faces] { w.varint(UInt64.max, lane) }
    w.raw([UInt8](repeating: 1, count: 1 << 21))
    #expect(w.payloadCount - w.count <= ContainerLimits.streamLengthsBytesMax)
  }

  @Test func streamLengthsThatDoNotFitAreRefused() {
    let bad: [[UInt8]] = [
      [], [0, 0, 0], [9, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0x80],
      [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0],
      // The first length takes the whole rest; the next one's bytes then overlap it.
      [3, 0x80, 0x80, 0x80, 0], [6, 0, 0, 0, 0, 0, 0],
    ]
    for b in bad {
      b.withUnsafeBytes { buf in
        #expect(throws: CodecError.self, "\(b)") { _ = try ByteReader.lanes(buf, count: Lane.count) }
      }
    }
    // Seven zero lengths and nothing else: eight empty streams.
    [UInt8](repeating: 0, count: 7).withUnsafeBytes { buf in
      let lanes = try? ByteReader.lanes(buf, count: Lane.count)
      #expect(lanes?.allSatisfy(\.atEnd) == true)
    }
  }

  /// Frames at the edges of the landmarks coding: the chunk's first frame, missing joints, no
  /// body, a body without joints, coordinates far outside the image and beyond the
  /// quantization's clamp, NaN, face counts that change, every face field.
  static func edgeFrames() -> [InputEvent] {
    func body(_ s: Double, missing: Set<Int> = [], scale: Double = 1) -> BodyPose {
      var b = BodyPose()
      for j in 0..<19 where !missing.contains(j) {
        b.points[j] = JointPoint(x: (0.3 + Double(j) * 0.017 + s * 0.0013) * scale, y: (0.9 - Double(j) * 0.031) * scale, conf: 0.5 + Double(j % 7) * 0.061)
      }
      return b
    }
    let full = FaceObservation(
      bbox: Rect(x: 0.4, y: 0.6, w: 0.2, h: 0.15), conf: 0.93,
      leftEye: EyePoint(x: 0.53, y: 0.7, conf: 0.8, precMax: 0.0123, ear: 0.3),
      rightEye: EyePoint(x: 0.47, y: 0.7, conf: 0.1, precMax: 0.2, ear: 0.25), nose: Point2(x: 0.5, y: 0.66),
      noseTip: Point2(x: 0.501, y: 0.651), chin: Point2(x: 0.5, y: 0.6), mouth: Point2(x: 0.49, y: 0.62), eyeAR: 0.31,
      landmarkConfAvg: 0.77)
    let bare = FaceObservation(bbox: Rect(x: -3, y: 1e6, w: 0, h: -0.5))
    var extreme = BodyPose()
    extreme.points[0] = JointPoint(x: 1e300, y: -1e300, conf: .nan)
    extreme.points[18] = JointPoint(x: -.infinity, y: .infinity, conf: -0.0)
    extreme.points[9] = JointPoint(x: 123_456.789, y: -98_765.4321, conf: 1)
    let frames: [LandmarkFrame] = [
      LandmarkFrame(frame: 5, srcT: 0, imageW: 1080, imageH: 1920, body: body(0), faces: [full], people: 1, visionMs: 12.5),
      LandmarkFrame(frame: 6, body: body(1, missing: [0, 3, 17, 18]), faces: [full, bare], people: 2),
      LandmarkFrame(frame: 7),
      LandmarkFrame(frame: 8, coords: .vision, body: BodyPose(), faces: [bare]),
      LandmarkFrame(frame: 4, body: extreme, faces: [bare, full, bare]),
      LandmarkFrame(frame: 9, body: body(2, scale: -40), faces: []),
      LandmarkFrame(frame: Int64.max, srcT: -7, body: body(3), faces: [full], people: 0, visionMs: -0.001),
      LandmarkFrame(frame: Int64.min, body: extreme, faces: [full]),
    ]
    var out: [InputEvent] = []
    for (i, f) in frames.enumerated() { out.append(InputEvent(t: 100 + Int64(i / 2) * 33, payload: .landmarks(f))) }
    return out
  }

  /// Encodes `events` as one chunk and decodes it with a decoder of the same encoding.
  static func roundTrip(_ events: [InputEvent], _ encoding: EventEncoding) throws -> [InputEvent] {
    var enc = EventEncoder(startT: events[0].t, firstSeq: 40)
    var w = ByteWriter(encoding: encoding)
    for (i, e) in events.enumerated() {
      enc.encode(e, seq: 40 + Int64(i), kindIndex: landmarksKind, into: &w)
    }
    let payload = w.payload()
    let decoder = EventDecoder(kindNames: JustPhotoEvents.kindTable, channel: .landmarks, definitions: JustPhotoEvents.self, encoding: encoding)
    decoder.reset(startT: events[0].t, endT: events.last!.t, firstSeq: 40)
    return try payload.withUnsafeBytes { b in
      var r = try decoder.open(b)
      var out: [InputEvent] = []
      for (i, _) in events.enumerated() {
        let (e, seq) = try decoder.decode(&r)
        #expect(seq == 40 + Int64(i))
        out.append(e)
      }
      #expect(decoder.bytesLeft(r) == 0)
      return out
    }
  }

  @Test func edgeFramesRoundTripInBothEncodings() throws {
    let events = Self.edgeFrames()
    let expected = events.map { e -> InputEvent in
      guard case .landmarks(let f) = e.payload else { return e }
      return InputEvent(t: e.t, payload: .landmarks(Quantization.rounded(f)))
    }
    for encoding in EventEncoding.allCases {
      let back = try Self.roundTrip(events, encoding)
      #expect(back == expected, "\(encoding)")
    }
    // Every value is within 2^-17 of what was appended (or clamped, or NaN → 0).
    let back = try Self.roundTrip(events, .v2)
    guard case .landmarks(let a) = events[1].payload, case .landmarks(let b) = back[1].payload else { Issue.record("no frame"); return }
    for j in 0..<19 {
      guard let p = a.body?.points[j] else {
        #expect(b.body?.points[j] == nil)
        continue
      }
      let q = try #require(b.body?.points[j])
      #expect(abs(q.x - p.x) <= 1.0 / 131072 && abs(q.y - p.y) <= 1.0 / 131072 && abs(q.conf - p.conf) <= 1.0 / 131072)
    }
  }

  @Test func aPayloadOfOneEncodingIsNotReadAsTheOther() throws {
    let events = Self.edgeFrames()
    var enc = EventEncoder(startT: events[0].t, firstSeq: 0)
    var w = ByteWriter(encoding: .v2)
    for (i, e) in events.enumerated() { enc.encode(e, seq: Int64(i), kindIndex: Self.landmarksKind, into: &w) }
    let decoder = EventDecoder(kindNames: JustPhotoEvents.kindTable, channel: .landmarks, definitions: JustPhotoEvents.self, encoding: .v1)
    decoder.reset(startT: events[0].t, endT: events.last!.t, firstSeq: 0)
    w.payload().withUnsafeBytes { b in
      #expect(throws: CodecError.self) {
        var r = try decoder.open(b)
        for _ in events { _ = try decoder.decode(&r) }
        if decoder.bytesLeft(r) != 0 { throw CodecError("bytes left") }
      }
    }
  }

  @Test func zstdFramesOfThePartsDecompressAsTheWhole() throws {
    var state: UInt64 = 7
    let bytes = (0..<300_000).map { i -> UInt8 in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return i < 150_000 ? UInt8(truncatingIfNeeded: state >> 60) : UInt8(truncatingIfNeeded: state >> 33)
    }
    for ends in [[300_000], [0, 300_000], [0, 0, 10, 10, 150_000, 300_000], [1, 2, 3, 299_999, 300_000, 300_000]] {
      let c = Zstd.compressFrames(bytes, level: 3, ends: ends)
      #expect(try Zstd.decompress(c, expectedSize: bytes.count) == bytes, "\(ends)")
      // A frame cut off, or a byte more, is not a whole number of frames.
      #expect(throws: Zstd.Failure.self) { try Zstd.decompress(Array(c.dropLast()), expectedSize: bytes.count) }
      #expect(throws: Zstd.Failure.self) { try Zstd.decompress(c + [0], expectedSize: bytes.count) }
      #expect(throws: Zstd.Failure.self) { try Zstd.decompress(c, expectedSize: bytes.count - 1) }
    }
    let empty = Zstd.compressFrames([], level: 19, ends: [0, 0])
    #expect(try Zstd.decompress(empty, expectedSize: 0) == [])
  }

  /// A `jprec-events/1` file (`Tests/Fixtures/drift-left-and-back.events1.jprec`: the corpus
  /// recording as committed before `Recordings/` was recorded again in `/2`) reads as before, it
  /// holds the events the committed `/2` recording holds, and the same events recorded now are
  /// `jprec-events/2` and read back equal.
  @Test func aCommittedRecordingReadsAndRecordsAgainAsTheNewEncoding() throws {
    let source = Self.repoRoot.appendingPathComponent("Tests/Fixtures/drift-left-and-back.events1.jprec").path
    let reader = try RecordingReader(path: source, definitions: JustPhotoEvents.self)
    #expect(try reader.stats().channels.allSatisfy { $0.encoding == "jprec-events/1" })
    var events: [InputEvent] = []
    while let e = try reader.next() { events.append(e) }
    #expect(events.count > 100)
    let committed = try RecordingReader(
      path: Self.repoRoot.appendingPathComponent("Recordings/drift-left-and-back.jprec").path, definitions: JustPhotoEvents.self)
    #expect(try committed.stats().channels.allSatisfy { $0.encoding == "jprec-events/2" })
    var now: [InputEvent] = []
    while let e = try committed.next() { now.append(e) }
    #expect(now == events)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lanes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let copy = dir.appendingPathComponent("copy.jprec").path
    let rec = try Recorder(path: copy, header: reader.header, chunkRawLimit: 4096, definitions: JustPhotoEvents.self)
    for e in events { try rec.append(e) }
    try rec.finish()
    let again = try RecordingReader(path: copy, definitions: JustPhotoEvents.self)
    #expect(try again.stats().channels.allSatisfy { $0.encoding == "jprec-events/2" })
    var back: [InputEvent] = []
    while let e = try again.next() { back.append(e) }
    #expect(back == events)
    #expect(Doctor.check(path: copy, definitions: JustPhotoEvents.self).status == .ok)
  }
}
