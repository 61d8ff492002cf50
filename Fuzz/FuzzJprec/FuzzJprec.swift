import CanonicalJSON
import EngineIO
import Foundation
import FuzzSupport
import Recording

/// libFuzzer target: one input is a whole `.jprec` file (an SQLite database).
///
/// The bytes are written to a scratch file and read with `RecordingReader` — the reader
/// `jpreplay replay` uses — event by event; `stats()` (`jpreplay info`) runs too, then the
/// events read before any error are replayed through the engine. A thrown error is fine; a
/// trap or a sanitizer report is a finding.
/// Seeds: the seed recordings' files as committed.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    try FuzzSeeds.recordings.map { name in
      ("\(name).jprec", [UInt8](try Data(contentsOf: URL(fileURLWithPath: FuzzSeeds.recordingPath(name)))))
    }
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJprec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let path = FuzzReplay.scratch.appendingPathComponent("input.jprec").path
  for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
  guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else {
    fatalError("fuzz: cannot write \(path)")
  }
  defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
  var events: [InputEvent] = []
  var header: JSONObject? = nil
  do {
    let reader = try RecordingReader(path: path, definitions: FuzzReplay.definitions)
    header = reader.header
    _ = try? reader.stats()
    while events.count < FuzzReplay.eventsMax, let e = try reader.next() { events.append(e) }
  } catch {}
  if let header { FuzzReplay.replay(header: header, events: events[...]) }
  return 0
}
