import Dispatch
import GRDB

/// A decompressed chunk: owned memory that grows to the largest chunk seen, plus the zstd
/// context used to fill it (both reused from chunk to chunk).
final class ChunkBuffer: @unchecked Sendable {
  private(set) var storage: UnsafeMutableRawBufferPointer
  /// How many bytes of `storage` hold the chunk.
  var count = 0
  let context = Zstd.DecompressionContext()

  init() { storage = .allocate(byteCount: 16, alignment: 8) }
  deinit { storage.deallocate() }

  func reserve(_ n: Int) {
    guard storage.count < n else { return }
    storage.deallocate()
    storage = .allocate(byteCount: n, alignment: 8)
  }

  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }
}

/// Loads (fetch, CRC check, decompress) the next chunk of a channel on a background queue while
/// the current one is decoded. Purely a speed-up: the bytes and the errors are exactly those of
/// loading in the foreground, and an error for chunk i surfaces only when chunk i is asked for.
final class ChunkPrefetcher: @unchecked Sendable {
  private let db: DatabaseQueue
  private let queue = DispatchQueue(label: "jprec.prefetch")
  /// The job in flight (or finished but not taken): its chunk index, buffer and outcome.
  private var pendingIndex: Int? = nil
  private var pendingBuffer = ChunkBuffer()
  private var pendingError: CodecError? = nil
  private let done = DispatchSemaphore(value: 0)

  init(db: DatabaseQueue) { self.db = db }

  /// Starts loading chunk `index` (described by `info`) in the background.
  func start(_ index: Int, _ info: ChunkInfo) {
    drain()
    pendingIndex = index
    pendingError = nil
    let buffer = pendingBuffer
    let db = self.db
    queue.async { [self] in
      let r: CodecError? = db.inDatabase { db in
        do throws(CodecError) {
          try ChunkLoader.load(db, info, into: buffer)
          return nil
        } catch { return error }
      }
      pendingError = r
      done.signal()
    }
  }

  /// Loads chunk `index` into `buffer` (swapping in the prefetched buffer when it is the one in
  /// flight). Returns the buffer now holding the chunk.
  /// Then starts loading `following` (the chunk after it), so it loads while this one is decoded.
  func take(
    _ index: Int, _ info: ChunkInfo, current: ChunkBuffer, following: (Int, ChunkInfo)?
  ) throws(CodecError) -> ChunkBuffer {
    if pendingIndex == index {
      done.wait()
      pendingIndex = nil
      let loaded = pendingBuffer
      pendingBuffer = current
      if let e = pendingError { throw e }
      if let following { start(following.0, following.1) }
      return loaded
    }
    drain()
    // Not prefetched (first chunk, or after a seek): load it here while the next one loads
    // in the background.
    if let following { start(following.0, following.1) }
    let r: CodecError? = db.inDatabase { db in
      do throws(CodecError) {
        try ChunkLoader.load(db, info, into: current)
        return nil
      } catch { return error }
    }
    if let r { throw r }
    return current
  }

  /// Waits for the job in flight, if any, and forgets it.
  func drain() {
    if pendingIndex != nil {
      done.wait()
      pendingIndex = nil
    }
  }

  deinit { drain() }
}
