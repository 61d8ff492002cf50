import Foundation
import PackagePlugin

/// Stamps `jpreplay` with the commit it is built from (`jpreplay --version`): before every
/// build, `stamp.sh` (beside this file) runs `git rev-parse HEAD` in the package and writes
/// `buildCommit` / `buildTreeChanged` into a generated source of the target. Git is asked at
/// build time, offline; a build outside a git checkout (or without git) says "unknown". The
/// file changes only when the commit does, so other builds recompile nothing.
@main
struct BuildStamp: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let out = context.pluginWorkDirectoryURL.appendingPathComponent("stamp")
    let script = context.package.directoryURL.appendingPathComponent("Plugins/BuildStamp/stamp.sh")
    return [
      .prebuildCommand(
        displayName: "Stamping \(target.name) with its commit",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: [script.path, context.package.directoryURL.path, out.path],
        outputFilesDirectory: out)
    ]
  }
}
