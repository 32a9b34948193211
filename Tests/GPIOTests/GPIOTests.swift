import Foundation
import Testing
@testable import GPIO

/// Library facts and failures that need no GPIO hardware: these run everywhere.
@Suite struct GPIOLibraryTests {
    @Test func libraryReportsItsVersion() throws {
        let version = GPIOLibrary.version
        let parts = version.split(separator: ".")
        #expect(parts.count >= 2 && parts.count <= 3, "version \(version)")
        #expect(parts.prefix(2).allSatisfy { Int($0) != nil }, "version \(version)")
        #expect(parts.first == "\(GPIOLibrary.apiMajor)"[...], "v\(GPIOLibrary.apiMajor) shim, library \(version)")
        #expect([1, 2].contains(GPIOLibrary.apiMajor))
        // Where libgpiod's own tools or pkg-config are at hand they must agree with the library.
        if let reference = ReferenceTools.libgpiodVersion() {
            #expect(version == reference.version, "\(reference.source) says \(reference.version)")
        }
    }

    @Test(arguments: [true, false])
    func missingChipFailsWithENOENT(byName: Bool) throws {
        let name = try #require(TestEnvironment.absentChipName(), "every gpiochip7…199 exists?")
        let path = "/dev/" + name
        let error = try #require(gpioError { _ = byName ? try GPIOChip(name: name) : try GPIOChip(path: path) })
        #expect(error.errno == ENOENT)
        #expect(error.operation == .openChip)
        #expect(error.chipPath == path)
        #expect(error.errnoName == "ENOENT")
        #expect(error.description == "\(name): no such chip (ENOENT) opening \(path)")
    }

    @Test func characterDeviceThatIsNotAChipIsRefused() throws {
        let error = try #require(gpioError { _ = try GPIOChip.open("/dev/null") })
        #expect(error.errno == ENODEV || error.errno == ENOTTY, "errno \(error.errno)")
        #expect(error.description == "null: not a GPIO chip (\(error.errnoName)) opening /dev/null")
    }
}

/// Real line requests on a real chip (the VM's PL061); without one they assert the clear error.
@Suite(.serialized) struct GPIOLineTests {
    static let consumer = "grandstand-test"

    @Test func outputLineRoundTrip() throws {
        guard let chipName = TestEnvironment.chip else {
            try expectNoChip()
            return
        }
        let chip = try GPIOChip.open(chipName)
        let line = try #require(TestEnvironment.lines.first)
        #expect(chip.name.hasPrefix("gpiochip"), "name \(chip.name)")
        #expect(chip.lineCount > Int(line), "\(chip.name) has \(chip.lineCount) lines")

        let request = try chip.requestOutputs([GPIOOutputLine(offset: line, initialValue: false)],
                                              consumer: Self.consumer)
        let info = try chip.lineInfo(line)
        #expect(info.isUsed && info.isOutput && !info.isActiveLow, "\(info)")
        #expect(info.consumer == Self.consumer)
        #expect(try request.values() == [false])
        try request.setValues([true])
        #expect(try request.value(offset: line) == true)
        try request.setValue(false, offset: line)
        #expect(try request.values() == [false])

        // A held line cannot be requested again, from this process or any other.
        let busy = try #require(gpioError {
            _ = try chip.requestOutputs([GPIOOutputLine(offset: line)], consumer: "other")
        })
        #expect(busy.errno == EBUSY)
        #expect(busy.description == "\(chip.name): line already in use (EBUSY) requesting lines [\(line)] on \(chip.path)")
        // The refused request must leave the holder's line alone (libgpiod 1.x shares line objects).
        let held = try chip.lineInfo(line)
        #expect(held.isUsed && held.consumer == Self.consumer, "\(held)")
        try request.setValues([true])
        #expect(try request.values() == [true])
        // A second handle on the chip (as another process would open it) is refused by the kernel.
        let other = try GPIOChip.open(chipName)
        let busyElsewhere = try #require(gpioError {
            _ = try other.requestOutputs([GPIOOutputLine(offset: line)], consumer: "other")
        })
        #expect(busyElsewhere.errno == EBUSY)
        #expect(try other.lineInfo(line).consumer == Self.consumer)

        request.release()
        #expect(try chip.lineInfo(line).isUsed == false)
        #expect(try other.lineInfo(line).isUsed == false)
        let released = try #require(gpioError { _ = try request.values() })
        #expect(released.errno == EBADF)
    }

    @Test func activeLowAndMultipleLines() throws {
        guard let chipName = TestEnvironment.chip else {
            try expectNoChip()
            return
        }
        let chip = try GPIOChip.open(chipName)
        let lines = TestEnvironment.lines
        // First line active-low and on; the rest (GPIO_TEST_LINES=0,1,2) active-high, alternating.
        // Two or more lines of one polarity catch per-line values landing on the wrong line.
        let wanted = lines.enumerated().map { i, offset in
            GPIOOutputLine(offset: offset, initialValue: i % 2 == 0, activeLow: i == 0)
        }
        let request = try chip.requestOutputs(wanted, consumer: Self.consumer)
        defer { request.release() }
        #expect(try chip.lineInfo(lines[0]).isActiveLow)
        #expect(try request.values() == wanted.map(\.initialValue))
        let flipped = wanted.map { !$0.initialValue }
        try request.setValues(flipped)
        #expect(try request.values() == flipped)
        for (offset, value) in zip(lines, flipped) {
            #expect(try request.value(offset: offset) == value)
        }
        // Setting one line by offset leaves the others as they were.
        var expected = flipped
        expected[expected.count - 1].toggle()
        try request.setValue(expected[expected.count - 1], offset: lines[lines.count - 1])
        #expect(try request.values() == expected)
        let wrongCount = try #require(gpioError { try request.setValues([]) })
        #expect(wrongCount.errno == EINVAL)
        let notRequested = try #require(gpioError { _ = try request.value(offset: UInt32(chip.lineCount)) })
        #expect(notRequested.errno == EINVAL)
    }

    @Test func badRequestsAreRefusedClearly() throws {
        guard let chipName = TestEnvironment.chip else {
            try expectNoChip()
            return
        }
        let chip = try GPIOChip.open(chipName)
        let beyond = UInt32(chip.lineCount)
        let outOfRange = try #require(gpioError {
            _ = try chip.requestOutputs([GPIOOutputLine(offset: beyond)], consumer: Self.consumer)
        })
        #expect(outOfRange.errno == EINVAL)
        #expect(outOfRange.operation == .requestLines(offsets: [beyond]))
        let line = try #require(TestEnvironment.lines.first)
        let duplicate = try #require(gpioError {
            _ = try chip.requestOutputs([GPIOOutputLine(offset: line), GPIOOutputLine(offset: line)],
                                        consumer: Self.consumer)
        })
        #expect(duplicate.errno == EINVAL)
        let none = try #require(gpioError { _ = try chip.requestOutputs([], consumer: Self.consumer) })
        #expect(none.errno == EINVAL)
        let noLine = try #require(gpioError { _ = try chip.lineInfo(beyond) })
        #expect(noLine.errno == EINVAL)
        #expect(noLine.description.contains("no such line (EINVAL) reading info of line \(beyond)"))
        // A line the kernel itself holds (VM: line 3, the gpio-keys power button).
        if let held = TestEnvironment.busyLine {
            let busy = try #require(gpioError {
                _ = try chip.requestOutputs([GPIOOutputLine(offset: held)], consumer: Self.consumer)
            })
            #expect(busy.errno == EBUSY)
            #expect(try chip.lineInfo(held).isUsed)
        }
    }

    /// No chip configured or present: opening the default chip must fail with ENOENT.
    private func expectNoChip() throws {
        let error = try #require(gpioError { _ = try GPIOChip(name: "gpiochip0") })
        #expect(error.errno == ENOENT)
        #expect(error.description == "gpiochip0: no such chip (ENOENT) opening /dev/gpiochip0")
    }
}

/// Runs `body` and returns the GPIOError it threw (nil if it threw nothing or something else).
/// `#expect(throws:)` only returns the error from Swift 6.1 on; the cross toolchain is 6.0.
func gpioError(_ body: () throws -> Void) -> GPIOError? {
    do {
        try body()
        return nil
    } catch let error as GPIOError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}
