/// The named bounds of the `.jprec` container (docs/FORMAT-jprec.md §2.1). Every size or count
/// read from a recording is checked against one of these BEFORE anything is allocated for it;
/// the writer refuses events that would break them, so everything it writes can be read back.
package enum ContainerLimits {
  /// Raw (decompressed) bytes of one chunk. The writer's default chunk is 256 KiB
  /// (`Recorder.defaultChunkRawLimit`; DESIGN §3 says ≤ ~1 MiB); 4 MiB leaves 16× headroom.
  /// Bounds the reader's memory: at most two chunk buffers per channel are alive.
  package static let chunkRawBytesMax = 1 << 22
  /// Bytes of the stream lengths in front of a payload's streams (`jprec-events/2`: seven
  /// varints of at most 10 bytes). The writer's chunk limit counts the streams alone, so it is
  /// at most `chunkRawBytesMax` less this.
  package static let streamLengthsBytesMax = 7 * 10
  /// Pixels (`w·h`) of one `luma` plane: the bound of the JSONL interchange and the engine
  /// (`RecordingLimits.lumaPixelsMax` = `LumaFrame.pixelsMax`, 2²¹).
  package static let lumaPixelsMax = RecordingLimits.lumaPixelsMax
  /// Bytes a `luma` event takes in a payload beyond its pixels (dt, dseq, kind, dframe, w, h, n:
  /// seven varints of at most 10 bytes each).
  package static let lumaEventOverheadBytesMax = 7 * 10
  /// Raw bytes of a chunk of the `pixels` channel that holds a single `luma` event larger than
  /// `chunkRawBytesMax` (the writer puts such an event alone in its chunk).
  package static let lumaChunkRawBytesMax = lumaPixelsMax + lumaEventOverheadBytesMax
  /// Raw bytes of a chunk holding exactly one event larger than `chunkRawBytesMax` (the writer
  /// puts such an event alone in its chunk): the interchange's line bound
  /// (`RecordingLimits.lineBytesMax`, 8 MiB) and 64 bytes for the event's varints, so a `.jprec`
  /// holds every event its JSONL form may carry — a PixScan library snapshot of 100,000 photos
  /// (`PixLimits.libraryMax`) takes about 7.8 MB. The reader's buffer stays bounded: at most two
  /// chunks per channel are alive.
  package static let singleEventChunkRawBytesMax = max(RecordingLimits.lineBytesMax + 64, lumaChunkRawBytesMax)
  /// Events in one chunk (the smallest event takes 6 bytes: 256 KiB chunks hold ≤ 43 690).
  package static let chunkEventsMax = 1 << 17
  /// Rows of `chunks` (a 60-minute session with luma on every frame takes ~1 300).
  package static let chunksMax = 1 << 18
  /// Rows of `channels` (7 channels exist).
  package static let channelsMax = 64
  /// Rows of `meta`.
  package static let metaRowsMax = 4096
  /// Bytes of all meta keys and values together (a header may inline a PoseSpec).
  package static let metaBytesMax = 1 << 24
  /// Entries of the kind table (meta `jprec.kinds`).
  package static let kindsMax = 256
  /// Faces in one `landmarks` event.
  package static let landmarkFacesMax = 64
  /// Events in one recording (sum of `jprec.event_counts`): the interchange's bound
  /// (`RecordingLimits.eventsMax`, 2²⁰), so a `.jprec` and its JSONL export accept the same
  /// recordings; every sum of counts stays far from Int64 overflow.
  package static let recordingEventsMax = Int64(RecordingLimits.eventsMax)
  /// Lines of `PRAGMA integrity_check` that `doctor` reports.
  package static let integrityLinesMax = 20

  /// `w·h` of a luma plane when both are ≥ 0 and the product is ≤ `lumaPixelsMax`; nil otherwise
  /// (overflow-safe).
  package static func lumaPixels(w: Int, h: Int) -> Int? {
    guard w >= 0, h >= 0 else { return nil }
    let (p, overflow) = w.multipliedReportingOverflow(by: h)
    guard !overflow, p <= lumaPixelsMax else { return nil }
    return p
  }
}
