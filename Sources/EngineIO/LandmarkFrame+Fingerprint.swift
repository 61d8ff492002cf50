/// A 64-bit fingerprint of a landmark event's content: every field, each number by its
/// bit pattern, each optional with its presence. Deterministic (no seeded hasher), so two
/// events with the same content have the same fingerprint in any process; two that differ in
/// any field differ in it but for a 2⁻⁶⁴ chance. What an observation tape checks an
/// evaluation's event by, in 8 bytes instead of a copy of the event (`ObservationTape`).
extension LandmarkFrame {
  public var fingerprint: UInt64 {
    var h = WordHash()
    h.mix(UInt64(bitPattern: frame))
    h.mix(srcT.map { UInt64(bitPattern: $0) })
    h.mix(imageW.map { UInt64(bitPattern: Int64($0)) })
    h.mix(imageH.map { UInt64(bitPattern: Int64($0)) })
    h.mix(UInt64(coords == .canonical ? 0 : 1))
    h.mix(people.map { UInt64(bitPattern: Int64($0)) })
    h.mix(visionMs)
    if let body {
      h.mix(UInt64(body.points.count))
      for p in body.points {
        guard let p else {
          h.mix(UInt64(0))
          continue
        }
        h.mix(UInt64(1))
        h.mix(p.x)
        h.mix(p.y)
        h.mix(p.conf)
      }
    } else {
      h.mix(UInt64.max)
    }
    h.mix(UInt64(faces.count))
    for f in faces {
      h.mix(f.bbox.x)
      h.mix(f.bbox.y)
      h.mix(f.bbox.w)
      h.mix(f.bbox.h)
      h.mix(f.conf)
      h.mix(f.leftEye)
      h.mix(f.rightEye)
      h.mix(f.nose)
      h.mix(f.noseTip)
      h.mix(f.chin)
      h.mix(f.mouth)
      h.mix(f.eyeAR)
      h.mix(f.landmarkConfAvg)
    }
    return h.value
  }
}

/// A multiply–xorshift hash of 64-bit words (MurmurHash3's finalizer constant, one word a
/// step: a byte-at-a-time FNV-1a cost ~3,000 instructions an event).
struct WordHash {
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  @inline(__always) mutating func mix(_ word: UInt64) {
    value = (value ^ word) &* 0xff51_afd7_ed55_8ccd
    value ^= value >> 33
  }

  @inline(__always) mutating func mix(_ d: Double) { mix(d.bitPattern) }

  @inline(__always) mutating func mix(_ word: UInt64?) {
    guard let word else {
      mix(UInt64(0x6e6f_6e65))  // "none"
      return
    }
    mix(UInt64(1))
    mix(word)
  }

  @inline(__always) mutating func mix(_ d: Double?) { mix(d.map(\.bitPattern)) }

  @inline(__always) mutating func mix(_ eye: EyePoint?) {
    guard let eye else {
      mix(UInt64(0))
      return
    }
    mix(UInt64(1))
    mix(eye.x)
    mix(eye.y)
    mix(eye.conf)
    mix(eye.precMax)
    mix(eye.ear)
  }

  @inline(__always) mutating func mix(_ point: Point2?) {
    guard let point else {
      mix(UInt64(0))
      return
    }
    mix(UInt64(1))
    mix(point.x)
    mix(point.y)
  }
}
