import CanonicalJSON

// JSON form of the persisted state: what `app_launch {store}` and `initial.session_restore`
// carry (ENGINE §1.4–1.5). Keys follow the app's column names; wall times are epoch ms.

extension SessionItem {
  /// The stored row as JSON with the app's column names (`item_id`, `shot_seq`, `state`, …);
  /// optional fields appear only when set.
  public var json: JSONValue {
    var o: JSONObject = [
      "item_id": .string(itemId), "shot_seq": .number(Double(shotSeq)),
      "created_at_ms": .number(Double(createdAtMs)), "state": .string(core.rawValue),
      "thumbnail_state": .string(thumb.rawValue), "album_state": .string(album.rawValue),
      "liked": .bool(liked), "write_attempts": .number(Double(writeAttempts)),
      "album_attempts": .number(Double(albumAttempts)), "thumb_attempts": .number(Double(thumbAttempts)),
      "album_retry_count": .number(Double(albumRetryCount)),
    ]
    if let assetId { o["asset_id"] = .string(assetId) }
    if let pendingFile { o["pending_file_rel_path"] = .string(pendingFile) }
    if let writeFailReason { o["write_fail_reason"] = .string(writeFailReason) }
    if let lastErrorAtMs { o["last_error_at_ms"] = .number(Double(lastErrorAtMs)) }
    if let albumRetryNextAtMs { o["album_retry_next_at_ms"] = .number(Double(albumRetryNextAtMs)) }
    return .object(o)
  }

  /// Lenient reader: a missing field takes its default; nil when the object has no item id or
  /// shot number, or an unknown state.
  public init?(json: JSONValue) {
    guard let o = json.objectValue, let id = o["item_id"]?.stringValue,
      let seq = o["shot_seq"]?.int64Value,
      let core = ItemCore(rawValue: o["state"]?.stringValue ?? "")
    else { return nil }
    self.init(
      itemId: id, shotSeq: Int(seq), createdAtMs: o["created_at_ms"]?.int64Value ?? 0, core: core,
      thumb: ThumbState(rawValue: o["thumbnail_state"]?.stringValue ?? "") ?? .pending,
      album: AlbumState(rawValue: o["album_state"]?.stringValue ?? "") ?? .none,
      liked: o["liked"]?.boolValue ?? false, assetId: o["asset_id"]?.stringValue,
      pendingFile: o["pending_file_rel_path"]?.stringValue,
      writeFailReason: o["write_fail_reason"]?.stringValue, lastErrorAtMs: o["last_error_at_ms"]?.int64Value,
      writeAttempts: Int(o["write_attempts"]?.int64Value ?? 0),
      albumAttempts: Int(o["album_attempts"]?.int64Value ?? 0),
      thumbAttempts: Int(o["thumb_attempts"]?.int64Value ?? 0),
      albumRetryCount: Int(o["album_retry_count"]?.int64Value ?? 0),
      albumRetryNextAtMs: o["album_retry_next_at_ms"]?.int64Value)
  }
}

extension SessionSnapshot {
  /// The session as JSON with the app's column names, its items newest first.
  public var json: JSONValue {
    .object([
      "session_id": .string(sessionId), "created_at_ms": .number(Double(createdAtMs)),
      "last_active_at_ms": .number(Double(lastActiveAtMs)), "scene": .string(scene),
      "flags": .array(flags.map { .string($0) }), "items": .array(items.map(\.json)),
      "next_shot_seq": .number(Double(nextShotSeq)), "ordinal": .number(Double(ordinal)),
      "ref_count": .number(Double(refCount)),
    ])
  }

  /// nil without a session id. `last_active_at_ms` defaults to `created_at_ms`;
  /// `next_shot_seq` to one past the largest stored shot.
  public init?(json: JSONValue) {
    guard let o = json.objectValue, let id = o["session_id"]?.stringValue else { return nil }
    let items = (o["items"]?.arrayValue ?? []).compactMap(SessionItem.init(json:))
    let created = o["created_at_ms"]?.int64Value ?? 0
    self.init(
      sessionId: id, createdAtMs: created, lastActiveAtMs: o["last_active_at_ms"]?.int64Value ?? created,
      scene: o["scene"]?.stringValue ?? "cafe",
      flags: (o["flags"]?.arrayValue ?? []).compactMap(\.stringValue).sorted(), items: items,
      nextShotSeq: Int(o["next_shot_seq"]?.int64Value ?? Int64((items.map(\.shotSeq).max() ?? 0) + 1)),
      ordinal: Int(o["ordinal"]?.int64Value ?? 1), refCount: Int(o["ref_count"]?.int64Value ?? 0))
  }
}

extension StoreSnapshot {
  /// `{"session": …, "install_flags": […]}`, the session null when there is none.
  public var json: JSONValue {
    .object([
      "session": session?.json ?? .null, "install_flags": .array(installFlags.map { .string($0) }),
    ])
  }
  /// Lenient reader: a session that cannot be read (no id) becomes nil, a non-string install
  /// flag is skipped, and the flags are sorted.
  public init(json: JSONValue) {
    self.init(
      session: json["session"].flatMap(SessionSnapshot.init(json:)),
      installFlags: (json["install_flags"]?.arrayValue ?? []).compactMap(\.stringValue).sorted())
  }
}
