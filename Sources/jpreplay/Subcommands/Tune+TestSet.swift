import ArgumentParser
import Foundation
import Lab

extension JPReplay.Tune.Promote {
  /// The test set (issue 35 item 3), read once after the trial is written: the shipped spec
  /// (`shippedText`, default options) and the trial side by side. Nothing reads these figures
  /// back: no study stores them, no gate decides on them.
  func reportTestSet(_ result: TunePromote.Result, shippedText: String) throws {
    guard testSet != "none" else { return }
    // No recordings folder here (a study promoted elsewhere): no test set to read.
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: recordingsDir, isDirectory: &isDir), isDir.boolValue else {
      print("tune promote: no \(recordingsDir)/ folder here: no test-set reading")
      return
    }
    let names: [String]
    do { names = try TuneTestSet.names(glob: testSet, recordingsDir: recordingsDir) } catch { throw CLIError.badInput(error.message) }
    guard !names.isEmpty else {
      print("tune promote: no test recordings (\(testSet) in \(recordingsDir)/): no test-set reading")
      return
    }
    do {
      let shipped = try TuneTestSet.read(
        names: names, recordingsDir: recordingsDir, specText: shippedText, specFile: spec, options: [],
        scope: TuneSetup.markerScope(specText: shippedText, options: []))
      let tuned = try TuneTestSet.read(
        names: names, recordingsDir: recordingsDir, specText: result.text, specFile: spec, options: result.options,
        scope: TuneSetup.markerScope(specText: result.text, options: result.options))
      print(TuneTestSet.table(names: names, shipped: shipped, trial: tuned, trialName: "trial #\(trial)"))
    } catch { throw CLIError.badInput(error.message) }
  }
}
