// swift-tools-version:6.0
import PackageDescription

// A macOS test package for an iOS app's coaching engine: open this folder in Xcode (File ›
// Open… › Package.swift) and run the tests (⌘U, "My Mac"). It depends on justphoto-replay by
// path (`../..`: this repository); in your own project use the repository's URL and a
// version instead, e.g. `.package(url: "<justphoto-replay's git URL>", from: "0.1.0")`.
//
// macOS only: JPReplayTesting reads `.jprec` recordings with zstd from the system (Homebrew's
// `brew install zstd`, found through pkg-config), which the iOS simulator does not have. Keep
// replay tests in a package like this one beside the app, not in the app's iOS test target.
let package = Package(
  name: "CoachingReplayTests",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "justphoto-replay", path: "../..")
  ],
  targets: [
    .testTarget(
      name: "CoachingReplayTests",
      dependencies: [.product(name: "JPReplayTesting", package: "justphoto-replay")],
      // Read from the source folder through #filePath, not bundled as resources.
      exclude: ["Replays"])
  ]
)
