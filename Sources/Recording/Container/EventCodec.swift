import CanonicalJSON
import EngineIO

/// The kind table of the event encoding: a kind is stored as its index in a list of kind
/// names, and the list itself is stored in meta `jprec.kinds`, so a file is read with its own
/// table. A new recording starts with its engine's (``EventDefinitions/kindTable``).
enum KindTable {
  /// The index of each name of `names` (the first, should a name repeat).
  static func index(of names: [String]) -> [String: Int] {
    var d: [String: Int] = [:]
    for (i, k) in names.enumerated() where d[k] == nil { d[k] = i }
    return d
  }
  /// The channel of each kind of `names`, as `definitions` states it (nil for a kind they do
  /// not declare, or declare with a channel `.jprec` does not have).
  static func channels(of names: [String], _ definitions: any EventDefinitions.Type) -> [Channel?] {
    names.map { definitions.channel(of: $0).flatMap(Channel.init(rawValue:)) }
  }
}

/// Face field slots (docs/FORMAT-jprec.md §5.3): slot → the presence bit it needs (-1 = always).
let faceSlotCount = 25
let faceSlotBit: [Int] = [-1, -1, -1, -1, 0, 1, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 14]

// Landmark flag bits.
let lmSrcT: UInt64 = 1, lmImageW: UInt64 = 2, lmImageH: UInt64 = 4, lmVision: UInt64 = 8
let lmBody: UInt64 = 16, lmPeople: UInt64 = 32, lmVisionMs: UInt64 = 64
let lmAllFlags: UInt64 = 127

/// Encodes events of one chunk. State resets at every chunk start.
struct EventEncoder {
  var prevT: Int64
  var prevSeq: Int64
  var prevFrame: Int64 = 0
  var prevLumaFrame: Int64 = 0
  var joints = [Int64](repeating: 0, count: 57)
  var faces: [Int64] = []

  init(startT: Int64, firstSeq: Int64) {
    prevT = startT
    prevSeq = firstSeq
  }

  mutating func encode(_ e: InputEvent, seq: Int64, kindIndex: Int, into w: inout ByteWriter) {
    w.zigzag(e.t &- prevT)
    prevT = e.t
    w.varint(UInt64(bitPattern: seq &- prevSeq))
    prevSeq = seq
    w.varint(UInt64(kindIndex))
    switch e.payload {
    case .landmarks(let f): encodeLandmarks(f, t: e.t, into: &w)
    case .luma(let l):
      w.zigzag(l.frame &- prevLumaFrame)
      prevLumaFrame = l.frame
      w.varint(UInt64(bitPattern: Int64(l.w)))
      w.varint(UInt64(bitPattern: Int64(l.h)))
      w.varint(UInt64(l.data.count))
      w.raw(l.data)
    case .typed(let g): Self.encodeFields(g.fields, into: &w)
    case .named(let n): Self.encodeFields(n.fields, into: &w)
    }
  }

  /// A JSON-carried event's fields: their length, then their JSON text.
  static func encodeFields(_ fields: JSONObject, into w: inout ByteWriter) {
    let text = JSONWriter.write(.object(fields), sortKeys: false, numbers: .shortest)
    let utf8 = Array(text.utf8)
    w.varint(UInt64(utf8.count))
    w.raw(utf8)
  }

  private mutating func encodeLandmarks(_ f: LandmarkFrame, t: Int64, into w: inout ByteWriter) {
    w.zigzag(f.frame &- prevFrame)
    prevFrame = f.frame
    var flags: UInt64 = 0
    if f.srcT != nil { flags |= lmSrcT }
    if f.imageW != nil { flags |= lmImageW }
    if f.imageH != nil { flags |= lmImageH }
    if f.coords == .vision { flags |= lmVision }
    if f.body != nil { flags |= lmBody }
    if f.people != nil { flags |= lmPeople }
    if f.visionMs != nil { flags |= lmVisionMs }
    w.varint(flags)
    if let s = f.srcT { w.zigzag(s &- t) }
    if let x = f.imageW { w.zigzag(Int64(x)) }
    if let x = f.imageH { w.zigzag(Int64(x)) }
    if let body = f.body {
      let n = min(body.points.count, 19)
      var mask: UInt64 = 0
      for i in 0..<n where body.points[i] != nil { mask |= 1 << UInt64(i) }
      w.varint(mask)
      for i in 0..<n {
        guard let p = body.points[i] else { continue }
        let qx = Quantization.quantize(p.x), qy = Quantization.quantize(p.y)
        let qc = Quantization.quantize(p.conf)
        w.zigzag(qx &- joints[3 * i], .jointXY)
        w.zigzag(qy &- joints[3 * i + 1], .jointXY)
        w.zigzag(qc &- joints[3 * i + 2], .jointConf)
        joints[3 * i] = qx
        joints[3 * i + 1] = qy
        joints[3 * i + 2] = qc
      }
    }
    w.varint(UInt64(f.faces.count), .faces)
    for (fi, face) in f.faces.enumerated() {
      if faces.count < (fi + 1) * faceSlotCount {
        faces.append(contentsOf: repeatElement(0, count: (fi + 1) * faceSlotCount - faces.count))
      }
      let values: [Double?] = [
        face.bbox.x, face.bbox.y, face.bbox.w, face.bbox.h, face.conf,
        face.leftEye?.x, face.leftEye?.y, face.leftEye?.conf, face.leftEye?.precMax, face.leftEye?.ear,
        face.rightEye?.x, face.rightEye?.y, face.rightEye?.conf, face.rightEye?.precMax, face.rightEye?.ear,
        face.nose?.x, face.nose?.y, face.noseTip?.x, face.noseTip?.y, face.chin?.x, face.chin?.y,
        face.mouth?.x, face.mouth?.y, face.eyeAR, face.landmarkConfAvg,
      ]
      var ff: UInt64 = 0
      for s in 0..<faceSlotCount where faceSlotBit[s] >= 0 && values[s] != nil {
        ff |= 1 << UInt64(faceSlotBit[s])
      }
      w.varint(ff, .faces)
      let base = fi * faceSlotCount
      for s in 0..<faceSlotCount {
        guard let v = values[s] else { continue }
        let q = Quantization.quantize(v)
        w.zigzag(q &- faces[base + s], .faces)
        faces[base + s] = q
      }
    }
    if let p = f.people { w.zigzag(Int64(p)) }
    if let v = f.visionMs { w.zigzag(Quantization.quantize(v)) }
  }
}

/// Decodes the events of one chunk, checking bounds, order and time range as it goes.
/// Reused across chunks (`reset`); holds the delta state in unmanaged memory for speed.
final class EventDecoder {
  /// How an event of each kind of the file's table is decoded.
  enum Slot {
    /// A kind the definitions do not declare.
    case unknown
    /// The hot landmarks payload.
    case landmarks
    /// The hot luma payload.
    case luma
    /// A typed event decoded by the definitions.
    case typed
  }
  /// The slot of each kind of the file's table, by index.
  let kinds: [Slot]
  /// The channel of each kind of the file's table (nil for a kind the definitions do not declare).
  let kindChannels: [Channel?]
  let kindNames: [String]
  let channel: Channel
  @exclusivity(unchecked) var prevT: Int64 = 0
  @exclusivity(unchecked) var prevSeq: Int64 = 0
  @exclusivity(unchecked) var first = true
  @exclusivity(unchecked) var startT: Int64 = 0
  @exclusivity(unchecked) var endT: Int64 = 0
  @exclusivity(unchecked) var prevFrame: Int64 = 0
  @exclusivity(unchecked) var prevLumaFrame: Int64 = 0
  /// The payload layout of the channel's chunks (`channels.encoding`).
  let encoding: EventEncoding
  /// `encoding` has lanes (§5.6): lanes 1–3 of the current chunk are read from these.
  let laned: Bool
  @exclusivity(unchecked) var xyLane = ByteReader()
  @exclusivity(unchecked) var confLane = ByteReader()
  @exclusivity(unchecked) var faceLane = ByteReader()
  let joints: UnsafeMutablePointer<Int64>
  @exclusivity(unchecked) var faces: UnsafeMutablePointer<Int64>
  @exclusivity(unchecked) var faceSlots: Int
  /// Recycled storage for the decoded arrays: a consumer that lets go of a frame within
  /// `poolSize - 1` frames gets its arrays reused in place (no allocation per frame);
  /// one that keeps frames gets fresh copies (copy-on-write), so values never change under it.
  /// Sized for a reader running ahead of the replay on its own thread (`PrefetchingSource`
  /// keeps up to 3 × 512 events in flight), so its frames come back before their slot does;
  /// slots are filled on first use.
  static let poolSize = 2048
  @exclusivity(unchecked) var pointPool: [[JointPoint?]] = Array(repeating: [], count: EventDecoder.poolSize)
  @exclusivity(unchecked) var facePool: [[FaceObservation]] = Array(repeating: [], count: EventDecoder.poolSize)
  @exclusivity(unchecked) var poolIndex = 0

  /// Every kind decodes as a named event (JSON fields): another engine's recording than the
  /// definitions' (``EventDefinitions/namedEvents(in:)``); false refuses a kind they do not declare.
  let namedKinds: Bool
  /// The vocabulary the typed kinds are decoded with (the recording's engine's, from the caller).
  let definitions: any EventDefinitions.Type

  init(
    kindNames: [String], channel: Channel, namedKinds: Bool = false, definitions: any EventDefinitions.Type,
    encoding: EventEncoding = .written
  ) {
    self.encoding = encoding
    laned = encoding != .v1
    self.kindNames = kindNames
    self.namedKinds = namedKinds
    self.definitions = definitions
    kindChannels = KindTable.channels(of: kindNames, definitions)
    // The hot payloads by their EngineIO names; any other kind the definitions give a channel.
    kinds = zip(kindNames, kindChannels).map { name, channel in
      if name == InputPayload.landmarksKind { return .landmarks }
      if name == InputPayload.lumaKind { return .luma }
      return channel == nil ? .unknown : .typed
    }
    self.channel = channel
    joints = .allocate(capacity: 57)
    joints.initialize(repeating: 0, count: 57)
    faceSlots = 4 * faceSlotCount
    faces = .allocate(capacity: faceSlots)
    faces.initialize(repeating: 0, count: faceSlots)
  }

  deinit {
    joints.deallocate()
    faces.deallocate()
  }

  func reset(startT: Int64, endT: Int64, firstSeq: Int64) {
    self.startT = startT
    self.endT = endT
    prevT = startT
    prevSeq = firstSeq
    first = true
    prevFrame = 0
    prevLumaFrame = 0
    joints.update(repeating: 0, count: 57)
    faces.update(repeating: 0, count: faceSlots)
  }

  /// Splits a chunk payload into its streams: returns the reader of lane 0 (every event starts
  /// there, `decode`'s argument) and keeps the other lanes.
  func open(_ payload: UnsafeRawBufferPointer) throws(CodecError) -> ByteReader {
    guard laned else { return try ByteReader(payload) }
    let l = try ByteReader.lanes(payload, count: Lane.count)
    xyLane = l[Lane.jointXY.rawValue]
    confLane = l[Lane.jointConf.rawValue]
    faceLane = l[Lane.faces.rawValue]
    return l[Lane.events.rawValue]
  }

  /// Bytes of the chunk not read yet, in `r` (lane 0) and the other lanes.
  func bytesLeft(_ r: ByteReader) -> Int {
    func left(_ l: ByteReader) -> Int { l.headRemaining + l.tailRemaining }
    return left(r) + (laned ? left(xyLane) + left(confLane) + left(faceLane) : 0)
  }

  /// Decodes one event; returns it with its sequence number.
  @inline(__always)
  func decode(_ r: inout ByteReader) throws(CodecError) -> (InputEvent, Int64) {
    let dt = try r.zigzag()
    let t = prevT &+ dt
    if first {
      guard dt == 0 else { throw CodecError("first event at t=\(t) but the chunk starts at \(startT) ms") }
    } else {
      guard dt >= 0 else { throw CodecError("event at t=\(t) comes after t=\(prevT) (out of order)") }
    }
    guard t <= endT else { throw CodecError("event at t=\(t) is past the chunk's end (\(endT) ms)") }
    let dseq = try r.varint()
    if first {
      guard dseq == 0 else { throw CodecError("first event's sequence number is not the chunk's first_seq") }
    } else {
      guard dseq > 0, dseq < 1 << 62 else { throw CodecError("event sequence numbers do not increase") }
    }
    let seq = prevSeq &+ Int64(dseq)
    prevT = t
    prevSeq = seq
    first = false
    let ki = try r.varint()
    guard ki < UInt64(kinds.count) else { throw CodecError("event kind index \(ki) is not in the kind table (\(kinds.count) kinds)") }
    if namedKinds {
      // Another engine's recording: every kind is a named event with JSON fields.
      let name = kindNames[Int(ki)]
      guard channel != .landmarks, channel != .pixels else {
        throw CodecError("a named \(name) event in channel \(channel.rawValue) (named events use JSON channels)")
      }
      return (InputEvent(t: t, payload: .named(NamedEvent(kind: name, fields: try decodeFields(&r, name)))), seq)
    }
    let kind = kinds[Int(ki)]
    if case .unknown = kind {
      throw CodecError("unknown event kind \"\(kindNames[Int(ki)])\" (written by a newer jpreplay?)")
    }
    guard kindChannels[Int(ki)] == channel else {
      throw CodecError("a \(kindNames[Int(ki)]) event in channel \(channel.rawValue)")
    }
    switch kind {
    case .landmarks: return (InputEvent(t: t, payload: .landmarks(try decodeLandmarks(&r, t: t))), seq)
    case .luma:
      prevLumaFrame = prevLumaFrame &+ (try r.zigzag())
      let wv = try r.varint(), hv = try r.varint()
      guard wv <= UInt64(ContainerLimits.lumaPixelsMax), hv <= UInt64(ContainerLimits.lumaPixelsMax),
        let pixels = ContainerLimits.lumaPixels(w: Int(wv), h: Int(hv))
      else {
        throw CodecError("luma: \(wv)×\(hv) pixels; expected w·h ≤ \(ContainerLimits.lumaPixelsMax) (lumaPixelsMax)")
      }
      let w = Int(wv), h = Int(hv)
      let n = try r.count(max: r.tailRemaining, "luma byte count")
      guard n == pixels else { throw CodecError("luma: \(n) bytes of data for \(w)×\(h) pixels; expected w·h = \(pixels)") }
      let data = try r.bytes(n)
      return (InputEvent(t: t, payload: .luma(LumaFrame(frame: prevLumaFrame, w: w, h: h, data: data))), seq)
    case .typed, .unknown:
      let name = kindNames[Int(ki)]
      return (InputEvent(t: t, payload: .typed(TypedEvent(definitions, kind: name, fields: try decodeFields(&r, name)))), seq)
    }
  }

  /// The JSON fields of a generic or named event.
  func decodeFields(_ r: inout ByteReader, _ kind: String) throws(CodecError) -> JSONObject {
    let n = try r.count(max: r.tailRemaining, "generic field length")
    let value: JSONValue
    do { value = try JSONParser.parse(bytes: r.rawBuffer(n)) } catch {
      throw CodecError("\(kind) event fields: invalid JSON (\(error.description))")
    }
    guard case .object(let o) = value else { throw CodecError("\(kind) event fields: not a JSON object") }
    return o
  }

  @inline(__always)
  private func decodeLandmarks(_ r: inout ByteReader, t: Int64) throws(CodecError) -> LandmarkFrame {
    prevFrame = prevFrame &+ (try r.zigzag())
    let flags = try r.varint()
    guard flags & ~lmAllFlags == 0 else { throw CodecError("landmarks: unknown flag bits 0x\(String(flags, radix: 16))") }
    // The fields in their order (§5.2); the frame is built once, at the end.
    let srcT: Int64? = flags & lmSrcT != 0 ? t &+ (try r.zigzag()) : nil
    let imageW: Int? = flags & lmImageW != 0 ? Int(truncatingIfNeeded: try r.zigzag()) : nil
    let imageH: Int? = flags & lmImageH != 0 ? Int(truncatingIfNeeded: try r.zigzag()) : nil
    var body: BodyPose? = nil
    if flags & lmBody != 0 {
      let mask = try r.varint()
      guard mask < 1 << 19 else { throw CodecError("landmarks: joint bitmap 0x\(String(mask, radix: 16)) has more than 19 bits") }
      let j = joints
      // Decode straight into the recycled points array (moved out of the pool, not copied).
      var points: [JointPoint?] = []
      swap(&points, &pointPool[poolIndex])
      if points.count != 19 { points = Array(repeating: nil, count: 19) }
      let failure: CodecError? = points.withUnsafeMutableBufferPointer { buf in
        // 19 slots (checked above): written through the base pointer, held in a register.
        let out = buf.baseAddress!
        @inline(__always) func put(_ k: Int, _ dx: Int64, _ dy: Int64, _ dc: Int64) {
          let x = j[3 * k] &+ dx
          let y = j[3 * k + 1] &+ dy
          let c = j[3 * k + 2] &+ dc
          j[3 * k] = x
          j[3 * k + 1] = y
          j[3 * k + 2] = c
          out[k] = JointPoint(x: Quantization.value(x), y: Quantization.value(y), conf: Quantization.value(c))
        }
        do throws(CodecError) {
          if laned {
            // x and y from their lane, confidences from theirs (§5.6).
            var xr = xyLane
            var cr = confLane
            defer {
              xyLane = xr
              confLane = cr
            }
            for k in 0..<19 {
              if mask & (1 << UInt64(k)) != 0 {
                let dx = try xr.zigzag()
                let dy = try xr.zigzag()
                put(k, dx, dy, try cr.zigzag())
              } else {
                out[k] = nil
              }
            }
          } else {
            for k in 0..<19 {
              if mask & (1 << UInt64(k)) != 0 {
                let dx = try r.zigzag()
                let dy = try r.zigzag()
                put(k, dx, dy, try r.zigzag())
              } else {
                out[k] = nil
              }
            }
          }
          return nil
        } catch { return error }
      }
      if let failure {
        swap(&points, &pointPool[poolIndex])
        throw failure
      }
      body = BodyPose(unchecked: points)
      swap(&points, &pointPool[poolIndex])
    }
    // Faces come from their own lane (§5.6), or the events' stream (§5.3).
    let list: [FaceObservation]
    if laned {
      var fr = faceLane
      list = try decodeFaces(&fr)
      faceLane = fr
    } else {
      list = try decodeFaces(&r)
    }
    poolIndex = poolIndex == EventDecoder.poolSize - 1 ? 0 : poolIndex + 1
    let people: Int? = flags & lmPeople != 0 ? Int(truncatingIfNeeded: try r.zigzag()) : nil
    let visionMs: Double? = flags & lmVisionMs != 0 ? Quantization.value(try r.zigzag()) : nil
    return LandmarkFrame(
      frame: prevFrame, srcT: srcT, imageW: imageW, imageH: imageH, coords: flags & lmVision != 0 ? .vision : .canonical,
      body: body, faces: list, people: people, visionMs: visionMs)
  }

  /// The faces of a landmarks event (§5.3), in the recycled array of the pool's current slot.
  @inline(__always)
  private func decodeFaces(_ reader: inout ByteReader) throws(CodecError) -> [FaceObservation] {
    // Read through a local copy (kept in registers), stored back once the faces are read.
    var r = reader
    defer { reader = r }
    let faceCount = try r.count(max: min(r.headRemaining / 5, ContainerLimits.landmarkFacesMax), "landmarks: face count")
    if faceCount > 0 {
      if faceCount * faceSlotCount > faceSlots {
        let n = faceCount * faceSlotCount
        let p = UnsafeMutablePointer<Int64>.allocate(capacity: n)
        p.initialize(repeating: 0, count: n)
        p.update(from: faces, count: faceSlots)
        faces.deallocate()
        faces = p
        faceSlots = n
      }
      var list: [FaceObservation] = []
      swap(&list, &facePool[poolIndex])
      defer { swap(&list, &facePool[poolIndex]) }
      // Same face count as the recycled array: overwrite in place (the common case).
      let inPlace = list.count == faceCount
      if !inPlace {
        list.removeAll(keepingCapacity: true)
        list.reserveCapacity(faceCount)
      }
      for fi in 0..<faceCount {
        let ff = try r.varint()
        guard ff < 1 << 15 else { throw CodecError("landmarks: face \(fi): unknown flag bits 0x\(String(ff, radix: 16))") }
        guard (ff & 0b11100 == 0 || ff & 0b10 != 0) && (ff & 0b1_1100_0000 == 0 || ff & 0b10_0000 != 0) else {
          throw CodecError("landmarks: face \(fi): eye fields without the eye")
        }
        let s = faces + fi * faceSlotCount
        // `r` is passed, not captured: a captured local would be checked for exclusive
        // access at run time on every read.
        @inline(__always) func next(_ r: inout ByteReader, _ k: Int) throws(CodecError) -> Double {
          s[k] = s[k] &+ (try r.zigzag())
          return Quantization.value(s[k])
        }
        /// Slot `k` when flag `bit` is set, else nil.
        @inline(__always) func next(_ r: inout ByteReader, _ k: Int, if bit: UInt64) throws(CodecError) -> Double? {
          ff & bit != 0 ? try next(&r, k) : nil
        }
        @inline(__always) func point(_ r: inout ByteReader, _ k: Int, if bit: UInt64) throws(CodecError) -> Point2? {
          ff & bit != 0 ? Point2(x: try next(&r, k), y: try next(&r, k + 1)) : nil
        }
        // The slots in their order (§5.3); arguments are evaluated left to right.
        let bbox = Rect(x: try next(&r, 0), y: try next(&r, 1), w: try next(&r, 2), h: try next(&r, 3))
        let conf = try next(&r, 4, if: 1)
        let leftEye =
          ff & 2 != 0
          ? EyePoint(
            x: try next(&r, 5), y: try next(&r, 6), conf: try next(&r, 7, if: 4), precMax: try next(&r, 8, if: 8),
            ear: try next(&r, 9, if: 16))
          : nil
        let rightEye =
          ff & 32 != 0
          ? EyePoint(
            x: try next(&r, 10), y: try next(&r, 11), conf: try next(&r, 12, if: 64), precMax: try next(&r, 13, if: 128),
            ear: try next(&r, 14, if: 256))
          : nil
        let nose = try point(&r, 15, if: 1 << 9)
        let noseTip = try point(&r, 17, if: 1 << 10)
        let chin = try point(&r, 19, if: 1 << 11)
        let mouth = try point(&r, 21, if: 1 << 12)
        let eyeAR = try next(&r, 23, if: 1 << 13)
        let landmarkConfAvg = try next(&r, 24, if: 1 << 14)
        let face = FaceObservation(
          bbox: bbox, conf: conf, leftEye: leftEye, rightEye: rightEye, nose: nose, noseTip: noseTip, chin: chin,
          mouth: mouth, eyeAR: eyeAR, landmarkConfAvg: landmarkConfAvg)
        if inPlace {
          list.withUnsafeMutableBufferPointer { $0[fi] = face }
        } else {
          list.append(face)
        }
      }
      return list
    }
    return []
  }
}
