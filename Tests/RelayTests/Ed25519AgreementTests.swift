// Ed25519 made by libsodium and checked as OpenSSL checks it (Sources/WaiCrypto/
// Ed25519Verification.swift, docs/audit-bundle.md §2.2): signatures equal to OpenSSL's byte for
// byte, and every verification answer equal to OpenSSL's, on honest signatures, on damaged ones,
// and on crafted ones that OpenSSL accepts and libsodium alone refuses.

import COpenSSL
import CSodium
import TestSupport
import WaiCrypto
import XCTest

final class Ed25519AgreementTests: XCTestCase {
    /// The group order L, little-endian.
    private static let order: [UInt8] = Hex.decode("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")!
    /// The identity point (x = 0, y = 1), canonical, and y = p + 1, a non-canonical spelling of it.
    private static let identity: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)
    private static let identityNonCanonical: [UInt8] = [0xee] + [UInt8](repeating: 0xff, count: 30) + [0x7f]
    /// A point of order 8.
    private static let order8: [UInt8] = Hex.decode("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")!

    private func opensslSign(seed: [UInt8], _ message: [UInt8]) throws -> [UInt8] {
        let pkey = try XCTUnwrap(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count))
        defer { EVP_PKEY_free(pkey) }
        let md = try XCTUnwrap(EVP_MD_CTX_new())
        defer { EVP_MD_CTX_free(md) }
        XCTAssertEqual(EVP_DigestSignInit(md, nil, nil, nil, pkey), 1)
        var sig = [UInt8](repeating: 0, count: 64)
        var len = sig.count
        XCTAssertEqual(EVP_DigestSign(md, &sig, &len, message, message.count), 1)
        return sig
    }

    private enum Answer: Equatable { case both(Bool), opensslOnly }

    /// The library's answer must be OpenSSL's; returns which library accepted.
    private func check(_ sig: [UInt8], _ message: [UInt8], _ key: [UInt8], _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) -> Answer {
        sig.withUnsafeBytes { s in
            message.withUnsafeBytes { m in
                let openssl = Ed25519Verification.openssl(signature: s, message: m, key: key)
                let sodium = Ed25519Verification.libsodium(signature: s, message: m, key: key)
                let ours = Ed25519Verification.verify(signature: s, message: m, key: key)
                XCTAssertEqual(ours, openssl, "\(what): the answer is not OpenSSL's", file: file, line: line)
                XCTAssertFalse(sodium && !openssl, "\(what): libsodium accepted what OpenSSL refuses", file: file, line: line)
                XCTAssertFalse(!sodium && openssl && !Ed25519Verification.refusalNeedsOpenSSL(signature: s, key: key),
                               "\(what): libsodium's refusal was taken as final, but OpenSSL accepts", file: file, line: line)
                return openssl && !sodium ? .opensslOnly : .both(openssl)
            }
        }
    }

    func testSignaturesAreOpenSSLsByteForByte() throws {
        for i in 0..<24 {
            let key = try Ed25519PrivateKey.generate()
            let message = (0..<(i * 29)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ i) }
            let sig = try key.sign(message)
            XCTAssertEqual(sig, try opensslSign(seed: key.seed, message), "message of \(message.count) bytes")
            XCTAssertEqual(check(sig, message, key.publicKey.bytes, "honest signature \(i)"), .both(true))
        }
    }

    func testDamagedSignaturesKeysAndMessagesGetOpenSSLsAnswer() throws {
        let key = try Ed25519PrivateKey(seed: [UInt8](repeating: 7, count: 32))
        let message = Array("DSSEv1 4 type 5 hello".utf8)
        let sig = try key.sign(message)
        for bit in 0..<(64 * 8) {
            var s = sig
            s[bit / 8] ^= 1 << (bit % 8)
            XCTAssertEqual(check(s, message, key.publicKey.bytes, "signature bit \(bit)"), .both(false))
        }
        for bit in 0..<(32 * 8) {
            var k = key.publicKey.bytes
            k[bit / 8] ^= 1 << (bit % 8)
            _ = check(sig, message, k, "key bit \(bit)")
        }
        XCTAssertEqual(check(sig, message + [0], key.publicKey.bytes, "longer message"), .both(false))
        XCTAssertEqual(check(sig, Array(message.dropLast()), key.publicKey.bytes, "shorter message"), .both(false))
        XCTAssertFalse(key.publicKey.verify(signature: Array(sig.prefix(63)), message: message))
        XCTAssertFalse(key.publicKey.verify(signature: sig + [0], message: message))
    }

    /// S + L verifies the same equation; both libraries refuse it (no malleable second signature).
    func testNonCanonicalSIsRefusedByBoth() throws {
        let key = try Ed25519PrivateKey(seed: [UInt8](repeating: 9, count: 32))
        let message = Array("m".utf8)
        var sig = try key.sign(message)
        var carry = 0
        for i in 0..<32 {
            let sum = Int(sig[32 + i]) + Int(Self.order[i]) + carry
            sig[32 + i] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        XCTAssertEqual(carry, 0, "S + L fits 256 bits for this key")
        XCTAssertEqual(check(sig, message, key.publicKey.bytes, "S + L"), .both(false))
    }

    /// The identity as a key (canonical or not) with R = identity and S = 0 satisfies
    /// [S]B = R + [k]A for every message: OpenSSL accepts, libsodium refuses (small order,
    /// non-canonical), so only the fallback gives OpenSSL's answer.
    func testSmallOrderAndNonCanonicalKeysOpenSSLAcceptsAreAccepted() throws {
        let sig = Self.identity + [UInt8](repeating: 0, count: 32)
        for key in [Self.identity, Self.identityNonCanonical] {
            for message in [[], Array("any message".utf8)] as [[UInt8]] {
                XCTAssertEqual(check(sig, message, key, "identity key \(Hex.encode(key))"), .opensslOnly)
                XCTAssertTrue(try Ed25519PublicKey(bytes: key).verify(signature: sig, message: message))
            }
        }
    }

    /// R of small order under a key that is not: with A = [a]B + T (T of order 8) and S = k·a,
    /// [S]B − [k]A = −[k mod 8]T, so the R among T's multiples that equals it makes a signature
    /// OpenSSL accepts and libsodium refuses for R alone (A is canonical and of large order).
    func testSmallOrderROpenSSLAcceptsIsAccepted() throws {
        let (a, key) = try mixedOrderKey()
        var multiples = [Self.identity]
        for _ in 1..<8 {
            var next = [UInt8](repeating: 0, count: 32)
            XCTAssertEqual(crypto_core_ed25519_add(&next, multiples.last!, Self.order8), 0)
            multiples.append(next)
        }
        var found = 0
        for i in 0..<16 {
            let message = Array("small-order R \(i)".utf8)
            for (j, R) in multiples.enumerated() {
                let k = reducedHash(R + key + message)
                guard (8 - Int(k[0] & 7)) % 8 == j else { continue }
                var s = [UInt8](repeating: 0, count: 32)
                crypto_core_ed25519_scalar_mul(&s, k, a)
                // The identity (j = 0) is of small order too.
                XCTAssertEqual(check(R + s, message, key, "R = [\(j)]T, message \(i)"), .opensslOnly)
                found += j == 0 ? 0 : 1
            }
        }
        XCTAssertGreaterThan(found, 0, "some message gives an R of order above 1")
    }

    /// Which of libsodium's refusals are asked of OpenSSL again: exactly those where R or A spells
    /// a point of small order (all eight multiples of T, either sign bit, and the non-canonical
    /// spellings p and p + 1 of y = 0 and 1) or A is not canonical (each y from p to 2^255 − 1).
    /// Damage an honest signer's signature, key or message otherwise, and the refusal is final.
    func testOnlyRefusalsWithSmallOrderOrNonCanonicalPointsAskOpenSSL() throws {
        func asks(_ sig: [UInt8], _ key: [UInt8]) -> Bool {
            sig.withUnsafeBytes { Ed25519Verification.refusalNeedsOpenSSL(signature: $0, key: key) }
        }
        let signer = try Ed25519PrivateKey.generate()
        let key = signer.publicKey.bytes
        let sig = try signer.sign(Array("honest".utf8))
        let s = Array(sig[32...])
        var smallOrder = [Self.identity]
        for _ in 1..<8 {
            var next = [UInt8](repeating: 0, count: 32)
            XCTAssertEqual(crypto_core_ed25519_add(&next, smallOrder.last!, Self.order8), 0)
            smallOrder.append(next)
        }
        let ff = [UInt8](repeating: 0xff, count: 30)
        smallOrder += [[0xed] + ff + [0x7f], Self.identityNonCanonical]
        for point in smallOrder {
            for sign in [0, 0x80] as [UInt8] {
                var p = point
                p[31] = p[31] & 0x7f | sign
                XCTAssertTrue(asks(p + s, key), "R = \(Hex.encode(p))")
                XCTAssertTrue(asks(sig, p), "A = \(Hex.encode(p))")
            }
        }
        for low in 0xed...0xff {
            for sign in [0, 0x80] as [UInt8] {
                XCTAssertTrue(asks(sig, [UInt8(low)] + ff + [0x7f | sign]), "non-canonical A, low byte \(low)")
            }
        }
        XCTAssertFalse(asks(sig, key), "an honest signature and key")
        XCTAssertFalse(asks(Array(sig[..<32]) + Self.order, key), "S = L")
        XCTAssertFalse(asks([UInt8](repeating: 0x5a, count: 64), key), "R that is no point")
        // Canonical keys at the edge: y = p − 2 is canonical (it may or may not be a point).
        XCTAssertFalse(asks(sig, [0xeb] + ff + [0x7f]), "y = p − 2")
        for bit in 0..<256 {
            var k = key
            k[bit / 8] ^= 1 << (bit % 8)
            let expected = smallOrder.contains { $0[0..<31] == k[0..<31] && $0[31] == k[31] & 0x7f }
                || (k[31] & 0x7f == 0x7f && k[1...30].allSatisfy { $0 == 0xff } && k[0] >= 0xed)
            XCTAssertEqual(asks(sig, k), expected, "key bit \(bit) flipped")
        }
    }

    /// (a, [a]B + T): a key with a small-order component.
    private func mixedOrderKey() throws -> ([UInt8], [UInt8]) {
        XCTAssertGreaterThanOrEqual(sodium_init(), 0, "libsodium's point arithmetic below needs it")
        var a = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_reduce(&a, [UInt8](repeating: 0x5a, count: 64))
        var aB = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(crypto_scalarmult_ed25519_base_noclamp(&aB, a), 0)
        var key = [UInt8](repeating: 0, count: 32)
        XCTAssertEqual(crypto_core_ed25519_add(&key, aB, Self.order8), 0)
        return (a, key)
    }

    /// SHA-512 of `bytes` reduced mod L: Ed25519's k.
    private func reducedHash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 64)
        crypto_hash_sha512(&digest, bytes, UInt64(bytes.count))
        var k = [UInt8](repeating: 0, count: 32)
        crypto_core_ed25519_scalar_reduce(&k, digest)
        return k
    }

    /// A key with a small-order component (A = [a]B + T, T of order 8): a signature made with a
    /// verifies under OpenSSL's cofactorless equation exactly when [k]T is the identity, for
    /// about one message in eight. Both libraries decide alike (the key is canonical and not of
    /// small order); these fixed messages give both answers.
    func testMixedOrderKeysGetOpenSSLsAnswer() throws {
        let (a, key) = try mixedOrderKey()
        var answers: [Answer] = []
        for i in 0..<48 {
            let message = Array("message \(i)".utf8)
            var r = [UInt8](repeating: 0, count: 32)
            crypto_core_ed25519_scalar_reduce(&r, [UInt8](repeating: UInt8(i + 1), count: 64))
            var R = [UInt8](repeating: 0, count: 32)
            XCTAssertEqual(crypto_scalarmult_ed25519_base_noclamp(&R, r), 0)
            let k = reducedHash(R + key + message)
            var ka = [UInt8](repeating: 0, count: 32), s = ka
            crypto_core_ed25519_scalar_mul(&ka, k, a)
            crypto_core_ed25519_scalar_add(&s, r, ka)
            answers.append(check(R + s, message, key, "mixed-order key, message \(i)"))
        }
        XCTAssertTrue(answers.contains(.both(true)), "some messages verify: \(answers)")
        XCTAssertTrue(answers.contains(.both(false)), "and some do not: \(answers)")
    }
}
