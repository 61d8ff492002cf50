/// The keys of a recording header's `initial` object (ENGINE §1.4): the device and UI state at
/// t = 0. ENGINE's own keys come first, then three of this project's (`camera_ready`,
/// `posespec`, `diagnostics_files`). A scenario's `initial:` may set exactly these (the parser
/// refuses any other key, most likely a typo); docs/FORMAT.md documents each (a test keeps the
/// two lists equal). `camera_facing` is carried for the record; the engine does not read it.
public enum InitialState {
  public static let keys: [String] = [
    "scene", "camera_auth", "photo_auth", "voiceover", "thermal", "network", "entitlement", "free_mb",
    "camera_facing", "install_flags", "session_restore", "session_id",
    "camera_ready", "posespec", "diagnostics_files",
  ]
}
