/**
 * A yes/no question on the terminal (the `confirm` widget's CLI form, seed 002 §5.3: a `y/N`
 * prompt): the question on one stream, one line of answer from another. Anything but `y` /
 * `yes` is no; so are end of input and Ctrl-C.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isYes } from './call-projection.js';

/**
 * Asks `question` on `output` and resolves with whether the line read from `input` says yes.
 * Resolves `false` on end of input or Ctrl-C (SIGINT on a terminal).
 */
export function askYesNo(question: string, input: Readable, output: Writable): Promise<boolean> {
  return new Promise((resolve) => {
    const rl = createInterface({ input, output, terminal: (input as { isTTY?: boolean }).isTTY === true });
    let settled = false;
    const finish = (answer: boolean): void => {
      if (settled) return;
      settled = true;
      rl.close();
      resolve(answer);
    };
    rl.on('SIGINT', () => {
      output.write('\n');
      finish(false);
    });
    rl.on('close', () => {
      finish(false);
    });
    rl.question(question, (answer) => {
      finish(isYes(answer));
    });
  });
}
