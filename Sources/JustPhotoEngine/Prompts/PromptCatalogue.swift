/// The prompt catalogue of ENGINE §4.5 as data: the 22 PRD §A.7.1 rows (exact zh strings), then
/// the engine keys marked [D] (and the one [C] key the engine keeps, the camera pre‑prompt).
///
/// Values the spec leaves open for the [D] rows (priority, gate, auto, buttons) are decisions
/// taken here; each row says where its numbers come from.
public enum PromptCatalogue {
  // Button glosses used by several rows.
  static let cancel = PromptButton("dismiss", "取消", "Cancel")
  static let later = PromptButton("dismiss", "稍后", "Later")
  static let settings = PromptButton("open_settings", "去设置", "Settings")

  /// The §4.5 catalogue table, in table order.
  public static let catalogueRows: [PromptDefinition] = [
    PromptDefinition(
      key: .subject_lost, level: .L2, surface: .cameraBannerTop, priority: 55, gate: .stateOnly,
      autoDismiss: .never, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "主角消失：请把她拉回画面", messageEn: "Subject lost: bring her back into the frame",
      actions: [PromptButton("resume_engine", "继续", "Continue")]),
    PromptDefinition(
      key: .session_count_15, level: .L2, surface: .cameraBannerTop, priority: 40, gate: .sessionOnce,
      autoDismiss: .standard, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "已拍 {count} 张：请挑选/清空", messageEn: "{count} shots taken: pick or clear",
      actions: [PromptButton("open_filmstrip", "去挑选", "Pick now")]),
    // G-29: the 20‑limit modal has the 4 buttons of PRD §4.1.3 (P0 freeze item 3), not the
    // catalogue's 2 (清理未喜欢 / 取消); texts are the catalogue's.
    PromptDefinition(
      key: .session_full_20, level: .L3, surface: .cameraModalCenter, priority: 80,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "本次已满 20 张", titleEn: "This session is full (20)",
      messageZh: "清理未喜欢，才能继续拍。不会删除系统相册照片。",
      messageEn: "Clear un‑liked shots to keep shooting. Photos in the system library are not deleted.",
      actions: [
        PromptButton("clear_unliked", "清理未喜欢", "Clear un‑liked"),
        PromptButton("go_wrap", "去拼图", "Collage"),
        PromptButton("reset_session", "重置会话", "Reset session"),
        cancel,
      ]),
    // G-16: unused by the engine (PRD §4.1.2 wins: `camera_denied_banner`); kept as data.
    PromptDefinition(
      key: .camera_permission_denied, level: .L3, surface: .cameraModalCenter, priority: 92,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "需要相机权限", titleEn: "Camera permission needed",
      messageZh: "打开系统设置允许相机，才能拍照。", messageEn: "Allow the camera in system Settings to take photos.",
      actions: [settings, cancel]),
    PromptDefinition(
      key: .camera_init_failed, level: .L3, surface: .cameraModalCenter, priority: 90,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "相机初始化失败", titleEn: "Camera initialization failed",
      messageZh: "点重试，或去设置检查相机/相册权限。",
      messageEn: "Tap Retry, or check camera/photo permissions in Settings.",
      actions: [PromptButton("retry_camera_init", "重试", "Retry"), settings]),
    PromptDefinition(
      key: .reset_session_confirm, level: .L3, surface: .cameraModalCenter, priority: 65,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "确认重置会话？", titleEn: "Reset this session?",
      messageZh: "将清空：session photos、used、wrap、参考图列表。不删除：系统相册里的照片。",
      messageEn:
        "Clears session photos, used, wrap and the reference list. Does not delete photos in the system library.",
      actions: [PromptButton("reset_session", "确认重置", "Confirm reset"), cancel]),
    // G-17: the engine shows `capture_failed_toast` / `camera_abnormal` (PRD §6.1.2) instead.
    PromptDefinition(
      key: .capture_failed, level: .L3, surface: .cameraModalCenter, priority: 85,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "没拍到", titleEn: "Nothing captured",
      messageZh: "再按一次快门。", messageEn: "Press the shutter again.",
      actions: [PromptButton("retry_capture", "重试", "Retry"), cancel]),
    PromptDefinition(
      key: .write_failed, level: .L3, surface: .viewerBlockingBarTop, priority: 100, blocksShutter: true,
      autoDismiss: .never, throttle: ThrottleRule(2, 60, 1, 0),
      messageZh: "未保存到系统相册（{reason}）", messageEn: "Not saved to the system library ({reason})",
      actions: [
        PromptButton("retry_write", "重试保存", "Retry save"),
        PromptButton("abandon_item", "放弃此张", "Discard this shot"),
      ]),
    PromptDefinition(
      key: .blocked_by_write_failed, level: .L2, surface: .cameraBannerTop, priority: 95,
      autoDismiss: .never, throttle: ThrottleRule(2, 20, 2, 60),
      messageZh: "有未保存照片：先处理再继续拍", messageEn: "Unsaved photo: resolve it before shooting on",
      actions: [PromptButton("open_first_write_failed", "去处理", "Resolve")]),
    // G-28 [D]: the banner per PRD §6.1.4 (also the real app's message), not the A.7 catalogue
    // row ("已保存，但没进 Just Photo 相册" + 修复); "稍后" suppresses further banners (§5.9).
    PromptDefinition(
      key: .album_add_failed, level: .L2, surface: .cameraBannerTop, priority: 60,
      autoDismiss: .standard, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "部分照片未归档到 Just Photo 相册", messageEn: "Some photos weren't archived to the Just Photo album",
      actions: [PromptButton("retry_album_add", "重试归档", "Retry archiving"), PromptButton("later", "稍后", "Later")]),
    PromptDefinition(
      key: .thumb_failed, level: .L2, surface: .viewerBannerTop, priority: 50,
      autoDismiss: .standard, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "缩略生成失败，不影响原图", messageEn: "Thumbnail failed; the original is fine"),
    PromptDefinition(
      key: .viewer_load_failed, level: .L2, surface: .viewerBannerTop, priority: 50,
      autoDismiss: .standard, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "加载失败，可重试", messageEn: "Failed to load; retry possible",
      actions: [PromptButton("retry_viewer_load", "重试", "Retry")]),
    PromptDefinition(
      key: .permission_upgrade_required, level: .L3, surface: .sheetModalCenter, priority: 70,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "需要相册权限", titleEn: "Photo library access needed",
      messageZh: "你可以补选要授权的照片，或去系统设置改为完全访问。",
      messageEn: "Select more photos to allow, or switch to Full Access in Settings.",
      actions: [
        PromptButton("open_limited_picker", "管理已选照片", "Manage selected photos"),
        PromptButton("open_settings", "去系统设置", "Open Settings"),
      ]),
    PromptDefinition(
      key: .favorite_sync_failed, level: .L2, surface: .cameraBannerTop, priority: 58, gate: .sessionOnce,
      autoDismiss: .never, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "已在 App 内标记喜欢，但没法同步到系统“喜欢”。",
      messageEn: "Liked in the app, but couldn't sync to system Favorites.",
      actions: [settings]),
    PromptDefinition(
      key: .ref_first_save_notice, level: .L3, surface: .sheetModalCenter, priority: 45, gate: .installOnce,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "提示", titleEn: "Note",
      messageZh: "将把参考图保存到「Just Photo」相册，仅用于参考，可随时删除。",
      messageEn: "The reference will be saved to the \"Just Photo\" album for reference only; delete it any time.",
      actions: [PromptButton("dismiss", "知道了", "Got it")]),
    PromptDefinition(
      key: .ref_reject_not_suitable, level: .L3, surface: .sheetModalCenter, priority: 75,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "这张不适合做参考图", titleEn: "This photo isn't suitable as a reference",
      messageZh: "原因：{reason}", messageEn: "Reason: {reason}",
      actions: [PromptButton("pick_ref_again", "换一张", "Pick another"), cancel]),
    PromptDefinition(
      key: .ref_copy_failed, level: .L2, surface: .sheetBannerTop, priority: 60,
      autoDismiss: .never, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "参考图保存失败。请检查相册权限或空间。",
      messageEn: "Saving the reference failed. Check photo permission or storage.",
      actions: [settings]),
    PromptDefinition(
      key: .odr_unavailable, level: .L1, surface: .cameraToastBottom, priority: 10,
      autoDismiss: .standard, throttle: ThrottleRule(2, 10, 3, 0),
      messageZh: "网络不可用，先用关键词", messageEn: "No network; use keywords for now"),
    PromptDefinition(
      key: .purchase_failed, level: .L3, surface: .sheetModalCenter, priority: 78,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "无法完成购买", titleEn: "Purchase could not be completed",
      messageZh: "你可以重试，或稍后再试。", messageEn: "Retry now or try again later.",
      actions: [
        PromptButton("retry_purchase", "重试", "Retry"), later,
        PromptButton("open_network_settings", "检查网络", "Check network"),
      ]),
    PromptDefinition(
      key: .restore_failed, level: .L3, surface: .sheetModalCenter, priority: 78,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "恢复失败", titleEn: "Restore failed",
      messageZh: "你可以重试，或稍后再试。", messageEn: "Retry now or try again later.",
      actions: [
        PromptButton("retry_restore", "重试", "Retry"), later,
        PromptButton("open_manage_subscriptions", "管理订阅", "Manage subscription"),
      ]),
    PromptDefinition(
      key: .low_space_warn, level: .L2, surface: .cameraBannerTop, priority: 42, gate: .sessionOnce,
      autoDismiss: .standard, throttle: ThrottleRule(10, 20, 2, 60),
      messageZh: "空间偏低（< {mb}MB）：建议先清理，避免保存失败",
      messageEn: "Storage low (< {mb} MB): free some space to avoid save failures"),
    PromptDefinition(
      key: .low_space_blocking, level: .L3, surface: .sheetModalCenter, priority: 88,
      autoDismiss: .never, throttle: ThrottleRule(10, 60, 1, 30),
      titleZh: "空间不足", titleEn: "Not enough storage",
      messageZh: "需要至少 {mb}MB 才能继续此操作。先清理空间再重试。",
      messageEn: "At least {mb} MB is needed for this. Free space and retry.",
      actions: [PromptButton("open_storage_settings", "去清理", "Free up space"), cancel]),
  ]

  /// Engine keys marked [D] in §4.5 (and G-38's `ref_limit_reached`), plus the [C] camera
  /// pre‑prompt. Throttles are the A.3.2 level defaults. Where the spec gives a single string
  /// for an L3 it is the message (no title).
  public static let engineRows: [PromptDefinition] = [
    // PRD §B.3.5 ("X" → {count}); priority [D] 45, banner without button → default auto.
    PromptDefinition(
      key: .session_recover_prune, level: .L2, surface: .cameraBannerTop, priority: 45, gate: .sessionOnce,
      autoDismiss: .standard,
      messageZh: "有 {count} 张照片已不可用，已从本次列表移除",
      messageEn: "{count} photos are no longer available and were removed from this list", origin: "D"),
    // PRD §6.1.3: stays until in_flight < 2 (`conditionEnded`); priority [D] 35.
    PromptDefinition(
      key: .in_flight_saving, level: .L2, surface: .cameraBannerTop, priority: 35, gate: .stateOnly,
      autoDismiss: .never, messageZh: "保存中…", messageEn: "Saving…", origin: "D"),
    // PRD §6.1.3 (= [C] write_failed_block_modal, priority 92 as [C]).
    PromptDefinition(
      key: .write_failed_block, level: .L3, surface: .cameraModalCenter, priority: 92,
      titleZh: "有照片未保存", titleEn: "Some photos are not saved",
      messageZh: "有照片未保存，请先处理", messageEn: "Some photos are not saved; please resolve first",
      actions: [PromptButton("open_first_write_failed", "查看并处理", "View and resolve"), cancel], origin: "D"),
    // PRD §B.4.2: stays until the interruption ends (`conditionEnded`); priority [D] 70.
    PromptDefinition(
      key: .camera_occupied, level: .L2, surface: .cameraBannerTop, priority: 70, gate: .stateOnly,
      messageZh: "相机被占用，稍后会自动恢复", messageEn: "Camera in use; it will recover automatically",
      origin: "D"),
    // PRD §4.1.2 (G-16; = [C] camera_permission_denied / _restricted L2, priority 80 as [C]).
    PromptDefinition(
      key: .camera_denied_banner, level: .L2, surface: .cameraBannerTop, priority: 80, gate: .stateOnly,
      messageZh: "未获得相机权限，无法拍照", messageEn: "No camera permission, can't take photos",
      actions: [settings], origin: "D"),
    PromptDefinition(
      key: .camera_restricted_banner, level: .L2, surface: .cameraBannerTop, priority: 80, gate: .stateOnly,
      messageZh: "相机受系统限制，无法使用", messageEn: "Camera restricted by the system",
      actions: [PromptButton("dismiss", "了解", "Got it")], origin: "D"),
    // [C] key (DIAG records 1–3: priority 90, blocksShutter true, action "continue").
    PromptDefinition(
      key: .camera_permission_preprompt, level: .L3, surface: .cameraModalCenter, priority: 90,
      blocksShutter: true, gate: .stateOnly,
      titleZh: "需要相机权限", titleEn: "Camera permission needed",
      messageZh: "Just Photo 需要相机权限才能拍照", messageEn: "Just Photo needs camera permission to take photos",
      actions: [PromptButton("continue", "继续", "Continue"), cancel], origin: "C"),
    // PRD §B.4.4; Limited variant (see `assetUnreadable(denied:)`); priority [D] 55.
    PromptDefinition(
      key: .asset_unreadable, level: .L2, surface: .viewerBannerTop, priority: 55,
      messageZh: "无法读取照片，请授权访问", messageEn: "Can't read this photo; please allow access",
      actions: [PromptButton("open_limited_picker", "管理已选照片", "Manage selected photos")], origin: "D"),
    // PRD §6.1.2 (G-17, option captureFailedText=prd; `captureFailedToast(code:)` for "没拍到").
    PromptDefinition(
      key: .capture_failed_toast, level: .L1, surface: .cameraToastBottom, priority: 20,
      autoDismiss: .standard, messageZh: "拍摄失败，请重试", messageEn: "Capture failed, please retry",
      origin: "D"),
    // PRD §6.1.2 (3 failures in 30 s); message and priority 88 from [C] capture_failed_abnormal_modal.
    PromptDefinition(
      key: .camera_abnormal, level: .L3, surface: .cameraModalCenter, priority: 88,
      titleZh: "相机异常", titleEn: "Camera problem",
      messageZh: "连续 {count} 次没拍到。建议重试相机初始化，或稍后再试。",
      messageEn: "{count} captures failed in a row. Retry camera init or try later.",
      actions: [PromptButton("retry_camera_init", "重试", "Retry"), cancel], origin: "D"),
    PromptDefinition(
      key: .nothing_to_clear, level: .L1, surface: .cameraToastBottom, priority: 10, autoDismiss: .standard,
      messageZh: "没有可清理的", messageEn: "Nothing to clear", origin: "D"),
    PromptDefinition(
      key: .feedback_recorded, level: .L1, surface: .cameraToastBottom, priority: 10, autoDismiss: .standard,
      messageZh: "已记录", messageEn: "Noted", origin: "D"),
    // PRD §4.6.1 wrap failures; priority [D] 75.
    PromptDefinition(
      key: .wrap_not_enough_photos, level: .L3, surface: .sheetModalCenter, priority: 75,
      messageZh: "照片不足，无法拼图", messageEn: "Not enough photos for a collage",
      actions: [PromptButton("dismiss", "知道了", "Got it")], origin: "D"),
    PromptDefinition(
      key: .wrap_save_failed, level: .L3, surface: .sheetModalCenter, priority: 75,
      messageZh: "无法保存拼图", messageEn: "Couldn't save the collage", actions: [settings, cancel], origin: "D"),
    PromptDefinition(
      key: .wrap_no_space, level: .L3, surface: .sheetModalCenter, priority: 75,
      messageZh: "存储空间不足", messageEn: "Not enough storage",
      actions: [PromptButton("open_storage_settings", "去清理", "Free up space"), cancel], origin: "D"),
    PromptDefinition(
      key: .wrap_generate_failed, level: .L3, surface: .sheetModalCenter, priority: 75,
      messageZh: "生成失败，请重试", messageEn: "Generation failed, retry",
      actions: [PromptButton("retry_wrap", "重试", "Retry"), cancel], origin: "D"),
    PromptDefinition(
      key: .next_ref_hint, level: .L1, surface: .cameraToastBottom, priority: 10, autoDismiss: .standard,
      messageZh: "要不要拍下一张参考图？", messageEn: "Shoot the next reference?", origin: "D"),
    // [C] toasts of §4.9 the engine keeps (base 2 s there; the L1 default here): the manual
    // album repair result (§5.9) and the clear_unliked confirmation (§5.4). [C]'s {ok}/{total}
    // and {n} are not A.2.4 placeholders: the text uses {count} (ok / deleted), the payload
    // keeps every number.
    PromptDefinition(
      key: .album_retry_empty, level: .L1, surface: .cameraToastBottom, priority: 6, autoDismiss: .standard,
      messageZh: "暂无需要修复的照片", messageEn: "Nothing to fix", origin: "C"),
    PromptDefinition(
      key: .album_retry_result, level: .L1, surface: .cameraToastBottom, priority: 6, autoDismiss: .standard,
      messageZh: "已修复 {count} 张", messageEn: "Fixed {count}", origin: "C"),
    PromptDefinition(
      key: .workset_clear_unliked_done, level: .L1, surface: .cameraToastBottom, priority: 10,
      autoDismiss: .standard, messageZh: "已清理未喜欢（{count}）", messageEn: "Cleared un‑liked ({count})",
      origin: "C"),
    // G-38: the 11th reference.
    PromptDefinition(
      key: .ref_limit_reached, level: .L3, surface: .sheetModalCenter, priority: 75,
      messageZh: "本次最多保存 10 张参考图", messageEn: "At most 10 references per session",
      actions: [PromptButton("reset_session", "重置会话", "Reset session"), cancel], origin: "D"),
  ]

  /// Every definition, catalogue rows first.
  public static let all: [PromptDefinition] = catalogueRows + engineRows

  static let index: [PromptKey: Int] = Dictionary(
    all.enumerated().map { ($0.element.key, $0.offset) }, uniquingKeysWith: { a, _ in a })

  /// The definition of `key`, or nil for a key outside the catalogue.
  public static func definition(_ key: PromptKey) -> PromptDefinition? {
    index[key].map { all[$0] }
  }

  /// `asset_unreadable` for Denied photo access: [去系统设置] instead of [管理已选照片].
  public static func assetUnreadable(denied: Bool) -> PromptDefinition {
    var d = definition(.asset_unreadable)!
    if denied { d.actions = [PromptButton("open_settings", "去系统设置", "Open Settings")] }
    return d
  }

  /// `capture_failed_toast` text per option `captureFailedText` (G-17): prd "拍摄失败，请重试",
  /// code "没拍到".
  public static func captureFailedToast(code: Bool) -> PromptDefinition {
    var d = definition(.capture_failed_toast)!
    if code {
      d.messageZh = "没拍到"
      d.messageEn = "Nothing captured"
    }
    return d
  }

  /// `camera_abnormal` with 去设置 when the cause is a permission problem (PRD §6.1.2).
  public static func cameraAbnormal(permissionCause: Bool) -> PromptDefinition {
    var d = definition(.camera_abnormal)!
    if permissionCause { d.actions.insert(settings, at: 1) }
    return d
  }
}
