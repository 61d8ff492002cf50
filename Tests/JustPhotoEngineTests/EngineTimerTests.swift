@testable import JustPhotoEngine
import EngineIO
import Testing

/// Typed timer ids (issue 25): the names the clock sees stay the strings the engine always used,
/// and a fired id is recognised by lookup, not by reading its name.
@Suite("EngineTimer (typed timer ids)")
struct EngineTimerTests {
  @Test func renderedNamesAreTheLongstandingStrings() {
    let expected: [(EngineTimer, String)] = [
      (.t1Tick, "tier.t1_tick"), (.t1Recovery, "tier.t1_recovery"), (.praiseTimeout, "praise.timeout"),
      (.cameraWarmupUpgrade, "camera.warmup.upgrade"), (.cameraWarmupFail, "camera.warmup.fail"),
      (.odrRetry, "odr.retry"), (.shutterRotation, "shutter.rotation"),
      (.promptAutoDismiss(.toast), "prompt.auto_dismiss.slotToast"),
      (.promptAutoDismiss(.viewerBlockingBar), "prompt.auto_dismiss.slotViewerBlockingBar"),
      (.capture(.album_retry, item: "I-3-1"), "capture.album_retry.I-3-1"),
      (.capture(.thumb_permanent, item: "I-12-4"), "capture.thumb_permanent.I-12-4"),
    ]
    for (timer, name) in expected { #expect(timer.id == TimerID(name), "\(timer)") }
  }

  @Test func everyTimerWithoutAnItemIsFoundByItsId() {
    #expect(EngineTimer.fixed.count == 7 + PromptSlot.allCases.count)
    for (id, timer) in EngineTimer.fixed { #expect(timer.id == id) }
    // A capture id is not in the fixed table: only the pipeline that scheduled it knows it.
    #expect(EngineTimer.fixed[EngineTimer.capture(.deadline, item: "I-1-1").id] == nil)
  }

  @Test func aCaptureTimerIsKnownOnlyWhileThePipelineHasItPending() {
    var p = CapturePipeline()
    var out: [CaptureOutput] = []
    p.schedule(.album_retry, "I-2-7", at: 900, &out)
    let id = EngineTimer.capture(.album_retry, item: "I-2-7").id
    #expect(p.scheduled(id) == CapturePipeline.ScheduledTimer(kind: .album_retry, item: "I-2-7"))
    // A look-alike name that was never scheduled is not parsed into a timer.
    #expect(p.scheduled(TimerID("capture.album_retry.I-2-8")) == nil)
    p.cancel(.album_retry, "I-2-7", &out)
    #expect(p.scheduled(id) == nil)
    #expect(out == [.timer(.schedule(id, at: 900)), .timer(.cancel(id))])
  }
}
