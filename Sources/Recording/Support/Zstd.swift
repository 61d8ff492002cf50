import CZstd
import Foundation

/// Thin wrappers over libzstd (system library, pkg-config `libzstd`).
package enum Zstd {
  /// The 4-byte zstd frame magic, little-endian on disk: 28 B5 2F FD.
  package static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

  package struct Failure: Error, CustomStringConvertible, Sendable {
    package var description: String
  }

  /// Compresses `input` into one zstd frame (with content size) at `level`.
  package static func compress(_ input: UnsafeRawBufferPointer, level: Int32 = 3) -> [UInt8] {
    let bound = ZSTD_compressBound(input.count)
    var out = [UInt8](repeating: 0, count: bound)
    let n = out.withUnsafeMutableBytes { o in
      ZSTD_compress(o.baseAddress, bound, input.baseAddress, input.count, level)
    }
    precondition(ZSTD_isError(n) == 0, "ZSTD_compress: \(String(cString: ZSTD_getErrorName(n)))")
    out.removeSubrange(n...)
    return out
  }

  package static func compress(_ input: [UInt8], level: Int32 = 3) -> [UInt8] {
    input.withUnsafeBytes { compress($0, level: level) }
  }

  /// Compresses each non-empty part of `input` between consecutive offsets of `ends`
  /// (ascending, the last = `input.count`) into its own zstd frame (with content size), at
  /// `level`, concatenated: zstd decompresses the concatenation as the whole input.
  package static func compressFrames(_ input: [UInt8], level: Int32, ends: [Int]) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    input.withUnsafeBytes { all in
      for end in ends where end > start {
        out += compress(UnsafeRawBufferPointer(rebasing: all[start..<end]), level: level)
        start = end
      }
    }
    return out.isEmpty ? compress([], level: level) : out
  }

  /// The summed content sizes of the zstd frames that make up `input` (ZSTD_CONTENTSIZE_ERROR
  /// when it is not a whole number of frames, ZSTD_CONTENTSIZE_UNKNOWN when a frame does not
  /// state its size).
  static func contentSize(_ input: UnsafeRawBufferPointer) -> UInt64 {
    guard let base = input.baseAddress else { return ZSTD_CONTENTSIZE_ERROR }
    var at = 0
    var total: UInt64 = 0
    repeat {
      let size = ZSTD_getFrameContentSize(base + at, input.count - at)
      if size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN { return size }
      let n = ZSTD_findFrameCompressedSize(base + at, input.count - at)
      if ZSTD_isError(n) != 0 || n == 0 { return ZSTD_CONTENTSIZE_ERROR }
      let (sum, overflow) = total.addingReportingOverflow(size)
      if overflow { return ZSTD_CONTENTSIZE_ERROR }
      total = sum
      at += n
    } while at < input.count
    return total
  }

  /// Decompresses one zstd frame whose content size is `expectedSize` (from the chunk row).
  /// Throws when the frame is damaged or its size differs.
  package static func decompress(
    _ input: UnsafeRawBufferPointer, expectedSize: Int
  ) throws(Failure) -> [UInt8] {
    guard expectedSize >= 0, expectedSize <= 1 << 30 else {
      throw Failure(description: "implausible raw size \(expectedSize)")
    }
    let declared = contentSize(input)
    if declared == ZSTD_CONTENTSIZE_ERROR { throw Failure(description: "not a zstd frame") }
    if declared != ZSTD_CONTENTSIZE_UNKNOWN, declared != UInt64(expectedSize) {
      throw Failure(description: "zstd frame holds \(declared) bytes, expected \(expectedSize)")
    }
    var out = [UInt8](repeating: 0, count: max(expectedSize, 1))
    let n = out.withUnsafeMutableBytes { o in
      ZSTD_decompress(o.baseAddress, expectedSize, input.baseAddress, input.count)
    }
    if ZSTD_isError(n) != 0 {
      throw Failure(description: "zstd: \(String(cString: ZSTD_getErrorName(n)))")
    }
    guard n == expectedSize else {
      throw Failure(description: "zstd frame decoded to \(n) bytes, expected \(expectedSize)")
    }
    if expectedSize == 0 { out.removeAll() }
    return out
  }

  /// A reusable decompression context (one per reading thread; not shareable across threads).
  package final class DecompressionContext {
    let dctx: OpaquePointer
    package init() { dctx = ZSTD_createDCtx() }
    deinit { ZSTD_freeDCtx(dctx) }
  }

  /// Decompresses one frame of exactly `expectedSize` bytes into `output` (which must hold at
  /// least that many), without allocating: the reader's hot path reuses one buffer per channel.
  package static func decompress(
    _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, expectedSize: Int,
    context: DecompressionContext? = nil
  ) throws(Failure) {
    guard expectedSize >= 0, expectedSize <= 1 << 30, expectedSize <= output.count else {
      throw Failure(description: "implausible raw size \(expectedSize)")
    }
    let declared = contentSize(input)
    if declared == ZSTD_CONTENTSIZE_ERROR { throw Failure(description: "not a zstd frame") }
    if declared != ZSTD_CONTENTSIZE_UNKNOWN, declared != UInt64(expectedSize) {
      throw Failure(description: "zstd frame holds \(declared) bytes, expected \(expectedSize)")
    }
    let n =
      if let context {
        ZSTD_decompressDCtx(context.dctx, output.baseAddress, expectedSize, input.baseAddress, input.count)
      } else {
        ZSTD_decompress(output.baseAddress, expectedSize, input.baseAddress, input.count)
      }
    if ZSTD_isError(n) != 0 {
      throw Failure(description: "zstd: \(String(cString: ZSTD_getErrorName(n)))")
    }
    guard n == expectedSize else {
      throw Failure(description: "zstd frame decoded to \(n) bytes, expected \(expectedSize)")
    }
  }

  package static func decompress(_ input: [UInt8], expectedSize: Int) throws(Failure) -> [UInt8] {
    let r: Result<[UInt8], Failure> = input.withUnsafeBytes { b in
      do throws(Failure) { return .success(try decompress(b, expectedSize: expectedSize)) } catch { return .failure(error) }
    }
    return try r.get()
  }
}

/// Streaming zstd decompression of a whole file (`.jsonl.zst`), in bounded memory: one
/// ~128 KiB output block at a time, and a decoder window of at most
/// 2^`RecordingLimits.zstdWindowLogMax` bytes (a frame asking for more is refused, not
/// allocated).
package final class ZstdFileReader {
  private let handle: FileHandle
  private let dctx: OpaquePointer
  private var inBuf = [UInt8]()
  private var inPos = 0
  private var eof = false
  private var frameOpen = false
  package private(set) var compressedBytesRead: Int64 = 0

  package init(handle: FileHandle) {
    self.handle = handle
    dctx = ZSTD_createDCtx()
    ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, RecordingLimits.zstdWindowLogMax)
  }
  deinit { ZSTD_freeDCtx(dctx) }

  /// Up to ~128 KiB of decompressed bytes; empty at the end of the input.
  /// Throws on damaged data or a file that ends inside a frame (truncated).
  package func read() throws(Zstd.Failure) -> [UInt8] {
    let outCap = ZSTD_DStreamOutSize()
    var out = [UInt8](repeating: 0, count: outCap)
    while true {
      if inPos >= inBuf.count {
        if eof {
          if frameOpen { throw Zstd.Failure(description: "compressed data ends inside a zstd frame (file truncated?)") }
          return []
        }
        let data = (try? handle.read(upToCount: 1 << 17)) ?? nil
        if let data, !data.isEmpty {
          inBuf = [UInt8](data)
          inPos = 0
          compressedBytesRead += Int64(data.count)
        } else {
          eof = true
          continue
        }
      }
      var produced = 0
      var result = 0
      inBuf.withUnsafeBytes { ib in
        out.withUnsafeMutableBytes { ob in
          var input = ZSTD_inBuffer(src: ib.baseAddress, size: ib.count, pos: inPos)
          var output = ZSTD_outBuffer(dst: ob.baseAddress, size: ob.count, pos: 0)
          result = ZSTD_decompressStream(dctx, &output, &input)
          inPos = input.pos
          produced = output.pos
        }
      }
      if ZSTD_isError(result) != 0 {
        let name = String(cString: ZSTD_getErrorName(result))
        var message = "zstd: \(name)"
        if name.contains("too much memory") {  // ZSTD_error_frameParameter_windowTooLarge
          message += " (the frame's window is over the bound zstdWindowLogMax = 2^\(RecordingLimits.zstdWindowLogMax) bytes; recompress with zstd -19 or lower)"
        }
        throw Zstd.Failure(description: message)
      }
      frameOpen = result != 0
      if produced > 0 {
        out.removeSubrange(produced...)
        return out
      }
    }
  }
}

/// Streaming zstd compression to a file handle (`cat -o x.jsonl.zst`).
package final class ZstdFileWriter {
  private let handle: FileHandle
  private let cctx: OpaquePointer
  private var pending = [UInt8]()

  package init(handle: FileHandle, level: Int32 = 3) {
    self.handle = handle
    cctx = ZSTD_createCCtx()
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
  }
  deinit { ZSTD_freeCCtx(cctx) }

  package func write(_ bytes: [UInt8]) throws {
    pending.append(contentsOf: bytes)
    if pending.count >= 1 << 17 { try flush(end: false) }
  }

  /// Ends the zstd frame and writes everything out.
  package func finish() throws { try flush(end: true) }

  private func flush(end: Bool) throws {
    let cap = ZSTD_CStreamOutSize()
    var out = [UInt8](repeating: 0, count: cap)
    var inPos = 0
    var finished = false
    while !finished {
      var produced = 0
      var remaining = 0
      pending.withUnsafeBytes { ib in
        out.withUnsafeMutableBytes { ob in
          var input = ZSTD_inBuffer(src: ib.baseAddress, size: ib.count, pos: inPos)
          var output = ZSTD_outBuffer(dst: ob.baseAddress, size: ob.count, pos: 0)
          remaining = ZSTD_compressStream2(cctx, &output, &input, end ? ZSTD_e_end : ZSTD_e_continue)
          inPos = input.pos
          produced = output.pos
        }
      }
      if ZSTD_isError(remaining) != 0 {
        throw Zstd.Failure(description: "zstd: \(String(cString: ZSTD_getErrorName(remaining)))")
      }
      if produced > 0 { try handle.write(contentsOf: out[0..<produced]) }
      finished = inPos >= pending.count && (end ? remaining == 0 : true)
    }
    pending.removeAll(keepingCapacity: true)
  }
}
