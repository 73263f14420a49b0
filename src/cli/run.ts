// The process entry point: run the command line with the process's arguments and streams.
import { main } from './main.ts';

process.exitCode = await main(process.argv);
