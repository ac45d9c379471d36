import TestSupport
import XCTest
@testable import Relay

final class CryptoTests: XCTestCase {
    // RFC 8032 §7.1 TEST 1 and TEST 3.
    func testRFC8032Vectors() throws {
        let k1 = try Ed25519PrivateKey(seed: Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")!)
        XCTAssertEqual(k1.publicKey.hex, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        XCTAssertEqual(Hex.encode(try k1.sign([])),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        let k3 = try Ed25519PrivateKey(seed: Hex.decode("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")!)
        XCTAssertEqual(k3.publicKey.hex, "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025")
        let sig = try k3.sign([0xaf, 0x82])
        XCTAssertEqual(Hex.encode(sig),
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a")
        XCTAssertTrue(k3.publicKey.verify(signature: sig, message: [0xaf, 0x82]))
        XCTAssertFalse(k3.publicKey.verify(signature: sig, message: [0xaf, 0x83]))
        XCTAssertFalse(k1.publicKey.verify(signature: sig, message: [0xaf, 0x82]))
        var bad = sig; bad[10] ^= 1
        XCTAssertFalse(k3.publicKey.verify(signature: bad, message: [0xaf, 0x82]))
        XCTAssertFalse(k3.publicKey.verify(signature: Array(sig.dropLast()), message: [0xaf, 0x82]))
    }

    func testSHA256Vectors() {
        XCTAssertEqual(Hex.encode(SHA256Hasher.digest([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(Hex.encode(SHA256Hasher.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let h = SHA256Hasher()
        h.update(Array("a".utf8)); h.update(Array("bc".utf8))
        XCTAssertEqual(Hex.encode(h.finalize()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testHexIsLowercaseOnly() {
        XCTAssertEqual(Hex.decode("00ff10"), [0, 255, 16])
        XCTAssertNil(Hex.decode("00FF"))
        XCTAssertNil(Hex.decode("abc"))
        XCTAssertNil(Hex.decode("zz"))
    }

    func testKeyFileRoundTripAndRefusals() throws {
        let dir = try TempDir()
        let key = try Ed25519PrivateKey.generate()
        let path = dir.path + "/k.key"
        try KeyFile.write(key, path: path)
        XCTAssertEqual(try KeyFile.read(path: path).publicKey, key.publicKey)
        XCTAssertThrowsError(try KeyFile.write(key, path: path))  // never overwrites
        let other = try Ed25519PrivateKey.generate()
        let mixed = "\(KeyFile.header)\nseed \(Hex.encode(key.seed))\npublic \(other.publicKey.hex)\n"
        XCTAssertThrowsError(try KeyFile.decode(mixed, path: "x")) { e in
            guard case .publicKeyMismatch = e as? KeyFileError else { return XCTFail("\(e)") }
        }
        XCTAssertThrowsError(try KeyFile.decode(String(KeyFile.encode(key).dropLast()), path: "x"))
        XCTAssertThrowsError(try KeyFile.decode(KeyFile.encode(key).replacingOccurrences(of: "v1", with: "v2"), path: "x")) { e in
            XCTAssertEqual(e as? KeyFileError, .malformed(path: "x", line: 1, reason: "expected '\(KeyFile.header)'"))
        }
        // Read with POSIX calls (no Foundation): the system's reason, bounded before reading.
        XCTAssertThrowsError(try KeyFile.read(path: dir.path + "/none.key")) { e in
            XCTAssertEqual(e as? KeyFileError, .unreadable(path: dir.path + "/none.key", reason: "No such file or directory"))
        }
        XCTAssertThrowsError(try KeyFile.read(path: dir.path)) { e in
            XCTAssertEqual(e as? KeyFileError, .unreadable(path: dir.path, reason: "not a regular file"))
        }
        try String(repeating: "x", count: 5000).write(toFile: dir.path + "/big.key", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try KeyFile.read(path: dir.path + "/big.key")) { e in
            XCTAssertEqual(e as? KeyFileError, .malformed(path: dir.path + "/big.key", line: 1, reason: "5000 bytes; a key file is at most 4096"))
        }
    }
}
