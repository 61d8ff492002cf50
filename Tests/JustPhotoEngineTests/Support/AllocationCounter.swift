#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Counts the Swift heap allocations (`swift_allocObject`: class instances, array, string and
/// dictionary storage, boxes, closure contexts) the calling thread makes inside `counting`,
/// through the runtime's allocation hook (`_swift_allocObject`, the pointer the runtime calls
/// through when it is set — what Instruments uses). A count, never a time.
///
/// Setting the hook makes the runtime switch its retain/release entry points to their
/// instrumented versions (`_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly`),
/// which mishandle some tagged values (a small string's bridge object): the hook clears that
/// switch on every call, and is in place only while `counting` runs. Run it where no other test
/// runs at the same time (an XCTest case: XCTest runs its cases one at a time).
enum AllocationCounter {
  typealias AllocObject = @convention(c) (UnsafeRawPointer?, Int, Int) -> UnsafeMutableRawPointer?

  nonisolated(unsafe) private static var original: AllocObject?
  nonisolated(unsafe) private static var swizzling: UnsafeMutablePointer<UInt8>?
  /// The thread being measured (nil: none).
  nonisolated(unsafe) private static var measured: pthread_t?
  nonisolated(unsafe) private static var count = 0

  /// The runtime's hook slot and its instrumentation switch, when this runtime has both.
  nonisolated(unsafe) static let slots: (hook: UnsafeMutablePointer<AllocObject?>, swizzling: UnsafeMutablePointer<UInt8>)? = {
    guard let handle = dlopen(nil, RTLD_NOW), let hook = dlsym(handle, "_swift_allocObject"),
      let switchByte = dlsym(handle, "_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly")
    else { return nil }
    return (hook.assumingMemoryBound(to: AllocObject?.self), switchByte.assumingMemoryBound(to: UInt8.self))
  }()

  /// Runs `body` with the hook in place, counting this thread's allocations; `body` gets a
  /// reader of the count so far. Nil when the runtime cannot be hooked.
  static func counting<R>(_ body: (_ allocations: () -> Int) throws -> R) rethrows -> R? {
    guard let (hook, switchByte) = slots, let previous = hook.pointee else { return nil }
    original = previous
    swizzling = switchByte
    count = 0
    measured = pthread_self()
    hook.pointee = { metadata, size, alignMask in
      AllocationCounter.swizzling!.pointee = 0
      if let t = AllocationCounter.measured, pthread_equal(t, pthread_self()) != 0 {
        AllocationCounter.count += 1
      }
      return AllocationCounter.original!(metadata, size, alignMask)
    }
    defer {
      hook.pointee = previous
      switchByte.pointee = 0
      measured = nil
    }
    return try body { count }
  }
}
