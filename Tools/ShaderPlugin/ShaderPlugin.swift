import Foundation
import PackagePlugin

/// Compiles the Vulkan backend's GLSL (Plugins/VulkanBackend/Shaders/*.comp) to SPIR-V at
/// build time and hands the target one generated Swift file holding every variant. The
/// shaders live outside the target's folder so SwiftPM does not see them as sources.
@main
struct ShaderPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directory.appending(subpath: "Plugins/VulkanBackend/Shaders")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.string)
            .filter { $0.hasSuffix(".comp") || $0.hasSuffix(".glsl") }
            .sorted()
        let files = names.map { folder.appending(subpath: $0) }
        let output = context.pluginWorkDirectory.appending(subpath: "Shaders.generated.swift")
        return [
            .buildCommand(displayName: "Compiling \(names.count) Vulkan shader files to SPIR-V",
                          executable: try context.tool(named: "ShaderCompiler").path,
                          arguments: [output.string] + files.map(\.string),
                          inputFiles: files,
                          outputFiles: [output]),
        ]
    }
}
