import { UsageError, parseDuration, buildConfig } from './common.mjs';
import { summarizeSession } from './record.mjs';

// The diagnostic server's commands (lib/remote.mjs; imported here only:
// it needs `ws`, and --help, --version and report work without node_modules).
export async function remote(command, rest, v, io) {
  let mod;
  try {
    mod = await import('../remote.mjs');
  } catch (e) {
    throw new Error(`${command} needs the WebSocket library ws (npm install): ${e.message.split('\n')[0]}`);
  }
  const { collectCommand, onceCommand, pagesCommand, resumeCommand, serveCommand } = mod;
  const collectOpts = () => {
    const config = buildConfig(v) ?? { sessions: [{}] };
    if (v.config === undefined) config.sessions[0].name = 'remote'; // presets only
    // The tool decides when to stop, unless --startup asked for a durationMs.
    if (v.startup === undefined) for (const s of config.sessions) delete s.durationMs;
    const durationMs = v.duration !== undefined ? parseDuration(v.duration, '--duration') : undefined;
    return { config, durationMs, summarize: (r) => summarizeSession(r, { top: v.top !== undefined ? Number(v.top) : 5 }) };
  };
  if (command === 'serve' && v.once) {
    if (v.duration === undefined && v.startup === undefined) throw new UsageError('serve --once: give --duration (or --startup)');
    return onceCommand(v, io, collectOpts());
  }
  if (command === 'serve') {
    const router = await serveCommand(v, io);
    await new Promise((r) => process.once('SIGINT', r));
    await router.close();
    return 0;
  }
  if (command === 'pages') return pagesCommand(v, io);
  if (command === 'resume') return resumeCommand(rest, v, io);
  return collectCommand(rest, v, io, collectOpts());
}
