#if canImport(Glibc)
import Glibc
#endif

/// Reads the first bytes of a file so that a plugin folder holding something that is not a
/// shared object gets a plain "not an ELF shared object" instead of dlopen's message
/// (which for a text file is a confusing "invalid ELF header" or worse, a linker script).
enum ELFCheck {
    static func check(path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw PluginError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw PluginError.unreadableFile(path: path, reason: "not a regular file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw PluginError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 18)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else {
            throw PluginError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        // 0x7f 'E' 'L' 'F', then e_type (offset 16, little or big endian) must be ET_DYN (3).
        guard n == 18, header[0] == 0x7f, header[1] == 0x45, header[2] == 0x4c, header[3] == 0x46 else {
            throw PluginError.notELF(path: path)
        }
        let littleEndian = header[5] == 1
        let eType = littleEndian ? UInt16(header[16]) | UInt16(header[17]) << 8
                                 : UInt16(header[17]) | UInt16(header[16]) << 8
        guard eType == 3 else { throw PluginError.notELF(path: path) }
    }
}
