import Foundation
import PackagePlugin

/// Compiles the browser page (the target's `BrowserPage/` folder: page.html and the .css and .js files it
/// names) into the target as a generated Swift source, so the page is part of the binary and no file has to
/// sit beside it. Every file in the folder is an input, so editing any of them re-embeds the page.
@main
struct EmbedBrowserPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // Target.directoryURL needs tools version 6.1; the package's 6.0 has the package's own URL.
        let folder = context.package.directoryURL.appendingPathComponent("Sources/\(target.name)/BrowserPage")
        let inputs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("BrowserPageHTML.swift")
        return [.buildCommand(
            displayName: "Embedding the browser page",
            executable: try context.tool(named: "BrowserPageEmbedder").url,
            arguments: [folder.appendingPathComponent("page.html").path, output.path],
            inputFiles: inputs,
            outputFiles: [output])]
    }
}
