// The runner every test target starts programs with (Tests/TestSupport): what it promises
// is what the other tests rely on to fail instead of hanging.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class SubprocessTests: XCTestCase {
    /// More than a pipe holds on both streams at once: neither blocks the child.
    func testBothStreamsAreDrainedWhileTheChildWrites() throws {
        let r = try Subprocess("/bin/sh", ["-c", "head -c 1000000 /dev/zero; head -c 1000000 /dev/zero >&2; echo done"],
                               deadline: 300).run()
        XCTAssertEqual(r.termination, .exited(0))
        XCTAssertEqual(r.stdout.count, 1_000_005)
        XCTAssertEqual(r.stdout.suffix(5), Array("done\n".utf8)[...])
        XCTAssertEqual(r.stderr.count, 1_000_000)
    }

    func testStandardInputAndEnvironmentChanges() throws {
        setenv("WAIHOST_SUBPROCESS_TEST_UNSET", "present", 1)
        defer { unsetenv("WAIHOST_SUBPROCESS_TEST_UNSET") }
        let input = [UInt8](repeating: 0x61, count: 200_000)
        let r = try Subprocess("/bin/sh", ["-c", "cat; printf '%s|%s' \"$A\" \"${WAIHOST_SUBPROCESS_TEST_UNSET-gone}\""],
                               environment: ["A": "set", "WAIHOST_SUBPROCESS_TEST_UNSET": nil],
                               input: .bytes(input), deadline: 300).run()
        XCTAssertEqual(r.status, 0, r.stderrText)
        XCTAssertEqual(r.stdout, input + Array("set|gone".utf8))
        // Without input the child reads end of file at once.
        XCTAssertEqual(try Subprocess("/bin/cat", [], deadline: 300).run().stdout, [])
    }

    func testExitStatusAndSignal() throws {
        let exited = try Subprocess("/bin/sh", ["-c", "exit 3"], deadline: 300).run()
        XCTAssertEqual(exited.termination, .exited(3))
        XCTAssertEqual(exited.status, 3)
        let signalled = try Subprocess("/bin/sh", ["-c", "kill -TERM $$"], deadline: 300).run()
        XCTAssertEqual(signalled.termination, .signalled(SIGTERM))
        XCTAssertEqual(signalled.status, 128 + SIGTERM)
    }

    /// Lines read while it runs; the result still holds the whole of stdout.
    func testReadLineWhileRunningThenWait() throws {
        let p = try Subprocess("/bin/sh", ["-c", "echo one; echo two >&2; read x; echo \"$x\"; printf tail"],
                               input: .bytes(Array("three\n".utf8)), deadline: 300).start()
        XCTAssertEqual(try p.readLine(), "one")
        XCTAssertEqual(try p.readLine(), "three")
        XCTAssertEqual(try p.readLine(), "tail")
        XCTAssertNil(try p.readLine())
        let r = try p.wait()
        XCTAssertEqual(r.stdoutText, "one\nthree\ntail")
        XCTAssertEqual(r.stderrText, "two\n")
        XCTAssertFalse(p.isRunning)
    }

    /// Past the deadline the whole process group goes, the grandchild too, and the error
    /// names the command and the deadline.
    func testDeadlineKillsTheProcessGroupAndNamesTheCommand() throws {
        let p = try Subprocess("/bin/sh", ["-c", "sleep 600 & echo $!; echo waiting >&2; wait"], deadline: 2).start()
        let grandchild = try XCTUnwrap(p.readLine().flatMap { pid_t($0) })
        XCTAssertThrowsError(try p.wait()) { error in
            guard let e = error as? SubprocessError, case .deadline(let seconds) = e.reason else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(seconds, 2)
            XCTAssertTrue(e.description.hasPrefix("/bin/sh -c 'sleep 600 & echo $!; echo waiting >&2; wait': still running after its deadline of 2.0 s"),
                          e.description)
            XCTAssertTrue(e.description.hasSuffix("stderr so far:\nwaiting\n"), e.description)
        }
        XCTAssertFalse(p.isRunning)
        // Killed: gone, or a zombie until whoever inherited it reaps it (SIGKILL is delivered
        // when the kernel next runs it, so this looks a few times, counted, not timed).
        func state() -> Substring? {
            (try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
        }
        for _ in 0..<500 where state().map({ $0 != "Z" }) ?? false { usleep(10_000) }
        let last = state()
        XCTAssertTrue(last == nil || last == "Z", "sleep \(grandchild) is still \(last.map(String.init) ?? "")")
    }

    /// A descriptor this process holds open (here a pipe's write end) does not reach the
    /// child: the child sees only its three streams.
    func testTheChildGetsOnlyItsThreeStreams() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let r = try Subprocess("/bin/sh", ["-c", "ls /proc/self/fd"], deadline: 300).run()
        // ls itself opens one descriptor for the listing, at 3.
        XCTAssertEqual(r.stdoutText.split(separator: "\n").compactMap { Int($0) }.filter { $0 > 3 }, [], r.stdoutText)
        XCTAssertEqual(r.status, 0, r.stderrText)
    }

    func testAProgramThatCannotStartIsNamed() {
        XCTAssertThrowsError(try Subprocess("/nonexistent/tool", ["x"]).run()) { error in
            XCTAssertEqual("\(error)", "/nonexistent/tool x: cannot start: No such file or directory")
        }
    }

    func testTemporaryDirectoriesAreRemoved() throws {
        var dir: TempDir? = try TempDir("subprocess-test")
        let path = try XCTUnwrap(dir?.path)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/file"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/file"))
        dir = nil
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        XCTAssertFalse(path.contains("//"), path)

        let root = TemporaryRoot("subprocess-test-root")
        let a = try root.directory("a"), b = try root.directory("a")
        XCTAssertNotEqual(a, b)
        XCTAssertTrue(a.hasPrefix(try root.rootPath() + "/a-"))
        root.removeAll()
        XCTAssertFalse(FileManager.default.fileExists(atPath: a))
        XCTAssertFalse(FileManager.default.fileExists(atPath: b))
    }
}
