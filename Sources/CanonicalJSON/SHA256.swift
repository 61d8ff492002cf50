/// SHA-256 (FIPS 180-4) in plain Swift, for PoseSpec fingerprints, generator hashes and
/// A.13 `asset_id_hash` values. Deterministic and dependency-free.
public enum SHA256 {
  /// The digest of `bytes` as 64 lowercase hex digits.
  public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    digest(bytes).map { b in
      let s = String(b, radix: 16)
      return b < 16 ? "0" + s : s
    }.joined()
  }
  /// The digest of the UTF-8 bytes of `text` as hex.
  public static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

  /// The 32-byte digest of `bytes`.
  public static func digest<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
    var hasher = Hasher()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// An incremental digest: `update` with successive pieces (a file read in chunks), then
  /// `finalize`; the same digest as ``digest(_:)`` of the pieces joined.
  public struct Hasher: Sendable {
    private var h: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes not yet compressed (fewer than 64).
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
      length &+= UInt64(bytes.count)
      // Whole blocks are compressed from the piece's own storage when it has one (an array,
      // `Data`): no copy into `pending` (issue 38 item 2: a study hashes ~29 MB of recordings).
      let direct: Void? = bytes.withContiguousStorageIfAvailable { absorb($0) }
      if direct == nil { absorb(Array(bytes)) }
    }

    private mutating func absorb(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { absorb($0) } }

    private mutating func absorb(_ bytes: UnsafeBufferPointer<UInt8>) {
      var start = 0
      if !pending.isEmpty {
        let take = min(64 - pending.count, bytes.count)
        pending.append(contentsOf: bytes[0..<take])
        start = take
        guard pending.count == 64 else { return }
        pending.withUnsafeBufferPointer { p in h.withUnsafeMutableBufferPointer { SHA256.compress($0, p.baseAddress!) } }
        pending.removeAll(keepingCapacity: true)
      }
      let whole = start + (bytes.count - start) / 64 * 64
      if start < whole, let base = bytes.baseAddress {
        h.withUnsafeMutableBufferPointer { state in
          var at = start
          while at < whole {
            SHA256.compress(state, base + at)
            at += 64
          }
        }
      }
      if whole < bytes.count { pending.append(contentsOf: bytes[whole...]) }
    }

    /// The 32-byte digest of everything given to `update`.
    public mutating func finalize() -> [UInt8] {
      let bitLength = length &* 8
      var tail = pending
      tail.append(0x80)
      while tail.count % 64 != 56 { tail.append(0) }
      for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
      tail.withUnsafeBufferPointer { t in
        h.withUnsafeMutableBufferPointer { state in
          var chunk = 0
          while chunk < t.count {
            SHA256.compress(state, t.baseAddress! + chunk)
            chunk += 64
          }
        }
      }
      pending = []
      var out: [UInt8] = []
      out.reserveCapacity(32)
      for v in h { for s in [24, 16, 8, 0] { out.append(UInt8(truncatingIfNeeded: v >> UInt32(s))) } }
      return out
    }
  }

  /// One 64-byte block at `block` into the state `h` (8 words). The message schedule is a
  /// rolling 16-word window on the stack: no allocation and no bounds check per block.
  static func compress(_ h: UnsafeMutableBufferPointer<UInt32>, _ block: UnsafePointer<UInt8>) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { w in
      for i in 0..<16 {
        let p = block + i * 4
        w[i] = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
      k.withUnsafeBufferPointer { k in
        for i in 0..<64 {
          let wi: UInt32
          if i < 16 {
            wi = w[i]
          } else {
            let w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15]
            let s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3)
            let s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10)
            wi = w[i & 15] &+ s0 &+ w[(i - 7) & 15] &+ s1
            w[i & 15] = wi
          }
          let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
          let ch = (e & f) ^ (~e & g)
          let t1 = hh &+ s1 &+ ch &+ k[i] &+ wi
          let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
          let maj = (a & b) ^ (a & c) ^ (b & c)
          let t2 = s0 &+ maj
          hh = g
          g = f
          f = e
          e = d &+ t1
          d = c
          c = b
          b = a
          a = t1 &+ t2
        }
      }
      h[0] = h[0] &+ a
      h[1] = h[1] &+ b
      h[2] = h[2] &+ c
      h[3] = h[3] &+ d
      h[4] = h[4] &+ e
      h[5] = h[5] &+ f
      h[6] = h[6] &+ g
      h[7] = h[7] &+ hh
    }
  }

  @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]
}
