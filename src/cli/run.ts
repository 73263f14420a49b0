// The process entry point: run the command line with the process's arguments and streams.
import { main } from './main.ts';

// A reader that stops early (`| head`) closes the pipe: the command stops there without a word, as a
// Unix tool that SIGPIPE ends does, never with a stack trace. The run did not finish, so it exits 1
// (what the world did, in the exit codes' terms).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(1);
  });
}

process.exitCode = await main(process.argv);
