// Stamps the `storefront` program with the commit it was built from, for `storefront --version`:
// before each build, a one-line Swift file with `git rev-parse`'s answer ("unknown" outside a
// checkout). The file is rewritten only when the commit changes, so that it costs no rebuild.
import Foundation
import PackagePlugin

@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.pluginWorkDirectoryURL.appending(path: "stamp")
        let file = folder.appending(path: "BuildCommit.swift").path
        let script = """
            mkdir -p '\(folder.path)'
            commit=$(git -C '\(context.package.directoryURL.path)' rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            line="let buildCommit = \\"$commit\\""
            [ "$(cat '\(file)' 2>/dev/null)" = "$line" ] || echo "$line" > '\(file)'
            """
        return [
            .prebuildCommand(
                displayName: "Stamping the commit", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script],
                outputFilesDirectory: folder
            )
        ]
    }
}
