import BurrowStorage
import BurrowStore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text written to standard output or to a file, in large buffered writes.
final class TextOutput {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer = ""
    private let path: String

    /// Standard output.
    static func standardOutput() -> TextOutput { TextOutput(descriptor: 1, owns: false, path: "standard output") }

    /// A new file at `path` (replacing one there), which must not be the file at `source`, the
    /// one the text is read from: under its own name, through a symbolic link or a hard link,
    /// emptying it would destroy what is being written out. Nor may it be a Burrow database,
    /// which text written over it would destroy. Throws `ToolError` if it cannot be created, is
    /// `source`, or is a database.
    static func file(_ path: String, notOver source: String) throws(ToolError) -> TextOutput {
        // Opened without truncating, so that the check sees the file that would be written.
        // Read as well, to see whether it holds a database (a file that may only be written
        // cannot be read, and cannot be checked).
        var descriptor = systemOpen(path, O_RDWR | O_CREAT, 0o644)
        if descriptor < 0, errno == EACCES { descriptor = systemOpen(path, O_WRONLY | O_CREAT, 0o644) }
        guard descriptor >= 0 else { throw ToolError(message: "\(path): cannot be written (\(String(cString: strerror(errno))))") }
        var output = stat()
        var input = stat()
        if fstat(descriptor, &output) == 0, stat(source, &input) == 0, output.st_dev == input.st_dev, output.st_ino == input.st_ino {
            systemClose(descriptor)
            throw ToolError(message: "\(path) names the file being read (\(source)): writing the output there would destroy it. Name another file.")
        }
        var header = [UInt8](repeating: 0, count: 16)
        if pread(descriptor, &header, header.count, 0) == header.count, Array(header[8..<16]) == Meta.magic {
            systemClose(descriptor)
            throw ToolError(message: "\(path) is a Burrow database: writing the output there would destroy it. Name another file.")
        }
        guard ftruncate(descriptor, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            systemClose(descriptor)
            throw ToolError(message: "\(path): cannot be written (\(reason))")
        }
        return TextOutput(descriptor: descriptor, owns: true, path: path)
    }

    private init(descriptor: Int32, owns: Bool, path: String) {
        self.descriptor = descriptor
        self.ownsDescriptor = owns
        self.path = path
    }

    /// Appends `text`, writing the buffer out when it is large.
    func write(_ text: String) throws(ToolError) {
        buffer += text
        if buffer.utf8.count >= 1 << 16 { try flush() }
    }

    /// Appends `text` and a line break.
    func line(_ text: String = "") throws(ToolError) {
        try write(text + "\n")
    }

    /// Writes out what is buffered. Throws `ToolError` if the write fails (a full disk, a
    /// closed pipe).
    func flush() throws(ToolError) {
        var bytes = Array(buffer.utf8)
        buffer = ""
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ToolError(message: "writing \(path) failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
        bytes.removeAll()
    }

    /// Writes out what is buffered and, for a file, syncs and closes it.
    func close() throws(ToolError) {
        try flush()
        if ownsDescriptor {
            guard fsync(descriptor) == 0, systemClose(descriptor) == 0 else {
                throw ToolError(message: "writing \(path) failed: \(String(cString: strerror(errno)))")
            }
        }
    }
}

// The system calls, under names the methods of `TextOutput` do not hide.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, bytes, count) }
@discardableResult private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
