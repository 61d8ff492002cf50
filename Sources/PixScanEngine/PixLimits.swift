/// The bounds of everything PixScan reads from a file (an input event, a store snapshot):
/// each count and size is checked against one of these before anything is allocated, and a
/// value past one is a decode error naming the bound.
public enum PixLimits {
  /// The most assets one `library_snapshot` may list.
  public static let libraryMax = 100_000
  /// The longest photo id, in UTF-8 bytes.
  public static let idBytesMax = 256
  /// The longest recognised text of one photo (and of an OCR error text), in UTF-8 bytes.
  public static let textBytesMax = 65_536
  /// The most recognised-text entries a store snapshot may hold.
  public static let textsMax = 100_000
  /// The most photo ids in the delete queue (and in one delete batch).
  public static let queueMax = 100_000
  /// The most processed photo ids a store snapshot may hold.
  public static let processedMax = 100_000
  /// The largest byte size of one asset (1 TiB).
  public static let assetBytesMax: Int64 = 1 << 40
  /// The largest magnitude of a creation date, ms since 1970 (±2^53: exact in JSON).
  public static let createdMagnitudeMax: Int64 = 1 << 53
  /// The highest delete batch number.
  public static let batchMax: Int64 = 1 << 40
}

/// Constants of the behaviour (not bounds of input).
public enum PixRules {
  /// How many photos after the current one the prefetch window asks the image cache for.
  public static let prefetchWindow = 3
  /// How many sample cards the onboarding's practice step shows.
  public static let practiceCards = 3
}
