// The IOA extension's client: starts `ioa lsp` (the language server built into the `ioa`
// command) for .ioa models and .universe files, and restarts it on request. Everything the
// editor shows (diagnostics, hover, definitions, references, outline, formatting, quick fixes)
// comes from the server; this file only connects the two.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

/** @type {LanguageClient | undefined} */
let client;

function createClient() {
  const config = vscode.workspace.getConfiguration("ioa");
  const command = config.get("path") || "ioa";
  const serverOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "ioa" },
      { scheme: "file", language: "ioa-universe" },
    ],
    outputChannelName: "IOA language server",
  };
  return new LanguageClient("ioa", "IOA language server", serverOptions, clientOptions);
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand("ioa.restartServer", async () => {
      if (client) {
        await client.stop();
      }
      client = createClient();
      await client.start();
    })
  );
  try {
    await client.start();
  } catch (error) {
    vscode.window.showErrorMessage(
      `IOA: cannot start \`${vscode.workspace.getConfiguration("ioa").get("path") || "ioa"} lsp\` ` +
        `(${error.message}). Install the ioa command or set "ioa.path".`
    );
  }
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
