import EngineIO
import Foundation
import JustPhotoIO
@testable import Recording
import XCTest


/// The byte-level pieces of the `.jprec` event encoding (docs/FORMAT-jprec.md §4–5).
final class CodecTests: XCTestCase {
  func testCRC32MatchesTheIEEECheckValue() {
    XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    XCTAssertEqual(CRC32.checksum([]), 0)
    XCTAssertEqual(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)), 0x414F_A339)
    // Lengths around the 8-byte stride agree with a bytewise reference.
    for n in 0..<40 {
      let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
      var c: UInt32 = 0xFFFF_FFFF
      for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
      }
      XCTAssertEqual(CRC32.checksum(bytes), c ^ 0xFFFF_FFFF, "length \(n)")
    }
  }

  /// Slicing-by-16: every length around its 16-byte stride, every start alignment, and a CRC
  /// fed in parts split anywhere, agree with a bitwise reference on pseudo-random bytes.
  func testCRC32SlicingBy16AgreesWithBitwiseReference() {
    func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
      var c: UInt32 = 0xFFFF_FFFF
      for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
      }
      return c ^ 0xFFFF_FFFF
    }
    var state: UInt64 = 38
    let bytes = (0..<4_200).map { _ -> UInt8 in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
    bytes.withUnsafeBytes { all in
      for start in 0..<16 {
        for n in Array(1..<100) + [255, 256, 257, 4_099 - start] {
          let part = UnsafeRawBufferPointer(rebasing: all[start..<(start + n)])
          XCTAssertEqual(CRC32.checksum(part), bitwise(bytes[start..<(start + n)]), "start \(start), length \(n)")
        }
      }
      let whole = bitwise(bytes[...])
      for cut in [0, 1, 15, 16, 17, 100, 2_048, 4_199, 4_200] {
        let parts = [UnsafeRawBufferPointer(rebasing: all[0..<cut]), UnsafeRawBufferPointer(rebasing: all[cut...])]
        XCTAssertEqual(CRC32.checksum(parts: parts), whole, "cut at \(cut)")
      }
    }
  }

  func testQuantization() {
    XCTAssertEqual(Quantization.quantize(1), 65536)
    XCTAssertEqual(Quantization.quantize(-0.5), -32768)
    XCTAssertEqual(Quantization.quantize(0.5 / 65536), 1)  // ties away from zero
    XCTAssertEqual(Quantization.quantize(-0.5 / 65536), -1)
    XCTAssertEqual(Quantization.quantize(.nan), 0)
    XCTAssertEqual(Quantization.quantize(.infinity), 1 << 53)
    XCTAssertEqual(Quantization.value(98304), 1.5)
    var g = SystemRandomNumberGenerator()
    for _ in 0..<10_000 {
      let v = Double.random(in: -3...3, using: &g)
      let r = Quantization.round(v)
      XCTAssertLessThanOrEqual(abs(r - v), 1.0 / 131072 + 1e-15)
      XCTAssertEqual(Quantization.round(r), r)
    }
  }

  func testSplitVarintsRoundTrip() throws {
    let values: [UInt64] = [0, 1, 127, 128, 255, 300, 16383, 16384, 1 << 21, 1 << 35, UInt64.max, UInt64.max - 1]
    let signed: [Int64] = [0, -1, 1, -64, 64, Int64.min, Int64.max, -123_456_789]
    var w = ByteWriter(encoding: .v1)
    for v in values { w.varint(v) }
    for v in signed { w.zigzag(v) }
    w.raw([9, 8, 7])
    let payload = w.payload()
    try payload.withUnsafeBytes { b in
      var r = try ByteReader(b)
      for v in values { XCTAssertEqual(try r.varint(), v) }
      for v in signed { XCTAssertEqual(try r.zigzag(), v) }
      XCTAssertEqual(try r.bytes(3), [9, 8, 7])
      XCTAssertTrue(r.atEnd)
      XCTAssertThrowsError(try r.varint())
    }
    // A varint whose continuation runs off the tail stream throws.
    let bad: [UInt8] = [1, 0x80, 0x80]
    try bad.withUnsafeBytes { b in
      var r = try ByteReader(b)
      XCTAssertThrowsError(try r.varint())
    }
    // A head length past the end throws.
    [UInt8]([9, 1]).withUnsafeBytes { b in
      do {
        _ = try ByteReader(b)
        XCTFail("head length past the end accepted")
      } catch {}
    }
  }

  func testLandmarksEncodeCompactly() {
    var enc = EventEncoder(startT: 0, firstSeq: 0)
    var w = ByteWriter()
    var b = BodyPose()
    for j in Joint.allCases { b[j] = JointPoint(x: 0.5, y: 0.5, conf: 0.9) }
    let f = LandmarkFrame(frame: 1, body: b)
    enc.encode(InputEvent(t: 0, payload: .landmarks(f)), seq: 0, kindIndex: KindTable.index(of: JustPhotoEvents.kindTable)[InputPayload.landmarksKind]!, into: &w)
    let first = w.count
    enc.encode(InputEvent(t: 33, payload: .landmarks(LandmarkFrame(frame: 2, body: b))), seq: 1, kindIndex: KindTable.index(of: JustPhotoEvents.kindTable)[InputPayload.landmarksKind]!, into: &w)
    // The second, identical frame costs one byte per joint value plus a few header bytes.
    XCTAssertLessThanOrEqual(w.count - first, 57 + 10)
  }
}
