// The `rema` command line: train, sft, eval, sweep, plan, verify, export, doctor. Each command is a thin layer over the same
// trainer the web page runs (src/rl), reading and writing plain files (JSONL, JSON, CSV, YAML).

import { writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { Command, Option } from 'commander';
import { exportVerl } from '../rl/export-verl.ts';
import type { WeightDtype } from '../engine/plan/memory.ts';
import { PRESET_NAMES } from '../rl/presets.ts';
import { SFT_PRESET_NAMES } from '../rl/sft-presets.ts';
import { configFromFlags, type ConfigFlags } from './config-flags.ts';
import { runDoctor } from './doctor.ts';
import { BENCHMARKS, runEval } from './eval.ts';
import { intFlag, intListFlag } from './flags.ts';
import { MAX_TIMER_MS } from '../rl/verifier/checker.ts';
import {
  runtimeChoices,
  SIMD_CHOICES,
  THREADS_CHOICES,
  WEIGHT_DTYPE_CHOICES,
  type RuntimeChoices,
  type RuntimeFlags,
} from './runtime-choices.ts';
import { BACKEND_KINDS, type BackendKind } from '../engine/backend.ts';
import { runSft, sftFromFlags, type SftFlags } from './sft.ts';
import { bytesFlag, formatPlan, runPlan, WEIGHT_DTYPES } from './plan.ts';
import { parseGrid, runSweep } from './sweep.ts';
import { runTrain } from './train.ts';
import { isDeviceLost } from '../engine/device-lost.ts';
import { DEVICE_LOST_EXIT } from './device-lost.ts';
import { runVerify } from './verify.ts';
import { readText } from './read-text.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function configOptions(cmd: Command): Command {
  return cmd
    .option('--preset <name>', `a named preset (${PRESET_NAMES.join(', ')})`)
    .option('--config <file>', 'a config JSON file (may say "extends": "<preset>")')
    .option('--set <key=value>', 'override one config field (repeatable; value read as JSON when it parses)', collect)
    .option('--steps <n>', 'override the number of RL steps')
    .option('--seed <s>', 'override the seed');
}

const backendOption = () =>
  new Option('--backend <kind>', 'compute backend').choices([...BACKEND_KINDS]).default('wasm');

const simdOption = () =>
  new Option(
    '--simd <build>',
    'WebAssembly build of the wasm backend: auto = relaxed SIMD (fused multiply-add) when available, ' +
      'else plain; relaxed or plain pin one (to reproduce a run recorded on that build)',
  )
    .choices([...SIMD_CHOICES])
    .default('auto');

const threadsOption = () =>
  new Option(
    '--threads <n>',
    'threads of the wasm backend: auto = 2 on a machine with at least 2 cores (large matmuls ' +
      'split over a helper thread, bit-identical results), 1 or 2 pins it',
  )
    .choices([...THREADS_CHOICES])
    .default('auto');

const weightDtypeOption = () =>
  new Option(
    '--weight-dtype <dtype>',
    'storage of the frozen base weights: auto = f16 for LoRA on WebGPU with shader-f16, else f32; ' +
      'f32; or f16 / bf16 halves (wasm backend; f16 also on WebGPU, with or without shader-f16): half the memory, computed in f32; LoRA only',
  )
    .choices([...WEIGHT_DTYPE_CHOICES])
    .default('auto');

const dataDirOption = () =>
  new Option(
    '--data-dir <dir>',
    'folder of the problem sets that are not shipped (math8k, aime24, ...: see README); default $REMA_DATA_DIR',
  );

const frozenAgentOption = () =>
  new Option(
    '--frozen-agent <role>',
    'this agent never trains and is run by --frozen-model (sets config.frozenAgent)',
  ).choices(['meta', 'reasoning']);

const frozenModelOption = () =>
  new Option(
    '--frozen-model <folder|org/name>',
    'the ONNX model (onnx/model.onnx + config and tokenizer files) that runs the frozen agent, on onnxruntime-node',
  );

function progressMode(quiet: boolean | undefined): 'bar' | 'lines' | 'none' {
  if (quiet) return 'none';
  return process.stderr.isTTY ? 'bar' : 'lines';
}

/** The command's --simd, --threads, --weight-dtype and --data-dir as one object (those it lacks: 'auto', none). */
function runtimeOf(o: RuntimeFlags): RuntimeChoices {
  return runtimeChoices({ simd: o.simd, threads: o.threads, weightDtype: o.weightDtype, dataDir: o.dataDir });
}

export function buildProgram(): Command {
  const program = new Command();
  program.name('rema').description('ReMA Playground: multi-agent meta-thinking RL, headless').showHelpAfterError();
  configOptions(
    program.command('train').description('train a config; resumable (re-run with the same --out after a kill)'),
  )
    .option('--out <dir>', 'run folder (metrics.jsonl, rollouts.jsonl, eval.jsonl, checkpoints/)', 'runs/latest')
    .addOption(backendOption())
    .addOption(simdOption())
    .addOption(threadsOption())
    .addOption(weightDtypeOption())
    .addOption(dataDirOption())
    .option('--save-every <n>', 'checkpoint every n steps', '1')
    .addOption(frozenAgentOption())
    .addOption(frozenModelOption())
    .option('--quiet', 'no progress output')
    .addOption(
      new Option(
        '--explain <groups>',
        'write explain.jsonl: what each update did to one problem group (one) or every group (all): rewards, advantages, ' +
          'per-token ratio / clip / loss coefficient, gradient norm per layer, log-probs before and after (one extra scoring pass per step)',
      ).choices(['one', 'all']),
    )
    .action(
      async (
        o: ConfigFlags &
          RuntimeFlags & {
            out: string;
            backend: BackendKind;
            saveEvery: string;
            quiet?: boolean;
            frozenModel?: string;
            explain?: 'one' | 'all';
          },
      ) => {
        const runtime = runtimeOf(o);
        const saveEvery = intFlag('--save-every', o.saveEvery, { min: 1 });
        const config = await configFromFlags(o);
        const s = await runTrain({
          config,
          out: o.out,
          backend: o.backend,
          runtime,
          saveEvery,
          progress: progressMode(o.quiet),
          ...(o.frozenModel !== undefined ? { frozenModel: o.frozenModel } : {}),
          ...(o.explain ? { explain: o.explain } : {}),
        });
        const last = s.metrics.at(-1);
        const evals = s.evals;
        process.stdout.write(
          `${s.out}: ${s.steps} steps${s.resumedFrom > 0 ? ` (resumed from step ${s.resumedFrom})` : ''}` +
            (s.finished !== undefined ? ` (${s.finished})` : '') +
            (last ? `, last reward ${last.reward_mean.toFixed(3)}` : '') +
            (evals.length > 0
              ? `, eval accuracy ${evals[0].accuracy.toFixed(3)} (step ${evals[0].step}) -> ${evals.at(-1)!.accuracy.toFixed(3)} (step ${evals.at(-1)!.step})`
              : '') +
            '\n',
        );
        if (s.stopped !== undefined) {
          // the run diverged (config.maxNonFiniteSteps): its files are complete up to that step, but it did not finish
          process.stderr.write(
            `rema train: stopped at step ${s.steps} of ${config.steps}: the run diverged (warnings above; maxNonFiniteSteps ${config.maxNonFiniteSteps})\n`,
          );
          process.exitCode = 3;
        }
      },
    );

  program
    .command('sft')
    .description(
      'supervised fine-tuning on chats (loss on every assistant message); resumable; ends with a model folder rema train starts from',
    )
    .option('--preset <name>', `an SFT preset (${SFT_PRESET_NAMES.join(', ')})`, 'tiny-sft-meta')
    .option(
      '--set <key=value>',
      'override a config field, or an SFT setting as sft.<key> (data, files, tinyProblems, epochs, batchSize, cutoff)',
      collect,
    )
    .option(
      '--data <file.jsonl>',
      'chat JSONL to train on, OpenAI messages or alpaca-with-history layout (repeatable; sets sft.data=files)',
      collect,
    )
    .option('--steps <n>', 'stop after n optimiser steps (0 = the epochs decide)')
    .option('--seed <s>', 'override the seed')
    .option('--out <dir>', 'run folder (config.json, sft.json, metrics.jsonl, checkpoints/, model/)', 'runs/sft')
    .addOption(backendOption())
    .addOption(simdOption())
    .addOption(threadsOption())
    .option('--save-every <n>', 'checkpoint every n steps', '50')
    .option('--quiet', 'no progress output')
    .action(
      async (
        o: SftFlags & RuntimeFlags & { out: string; backend: BackendKind; saveEvery: string; quiet?: boolean },
      ) => {
        const runtime = runtimeOf(o);
        const saveEvery = intFlag('--save-every', o.saveEvery, { min: 1 });
        const run = sftFromFlags(o);
        const s = await runSft({
          ...run,
          out: o.out,
          backend: o.backend,
          runtime,
          saveEvery,
          progress: o.quiet ? 'none' : 'lines',
        });
        const first = s.metrics[0];
        const last = s.metrics.at(-1);
        process.stdout.write(
          `${s.out}: ${s.steps} steps${s.resumedFrom > 0 ? ` (resumed from step ${s.resumedFrom})` : ''}` +
            (first && last ? `, loss ${first.loss.toFixed(4)} -> ${last.loss.toFixed(4)}` : '') +
            (s.model ? `, model ${s.model}` : '') +
            '\n',
        );
      },
    );

  configOptions(program.command('eval').description('greedy pass@1 per benchmark'))
    .option('--benchmarks <list>', `comma-separated (${BENCHMARKS.join(', ')})`)
    .option('--file <f.jsonl>', 'a JSONL problem file (repeatable)', collect)
    .option('--limit <n>', 'at most n problems per benchmark (seeded subset; 0 = all)', '0')
    .option('--checkpoint <dir>', 'a run folder or checkpoint folder whose adapters to load')
    .option('--out <dir>', 'write eval_summary.json and per-benchmark transcripts')
    .addOption(backendOption())
    .addOption(simdOption())
    .addOption(threadsOption())
    .addOption(weightDtypeOption())
    .addOption(dataDirOption())
    .option(
      '--onnx <folder|org/name>',
      'evaluate this ONNX model (onnx/model.onnx, onnx-community layout) as the policy of every role, on onnxruntime-node',
    )
    .addOption(frozenAgentOption())
    .addOption(frozenModelOption())
    .option('--quiet', 'no progress bar')
    .action(
      async (
        o: ConfigFlags &
          RuntimeFlags & {
            benchmarks?: string;
            file?: string[];
            limit: string;
            checkpoint?: string;
            out?: string;
            backend: BackendKind;
            quiet?: boolean;
            onnx?: string;
            frozenModel?: string;
          },
      ) => {
        const runtime = runtimeOf(o);
        const limit = intFlag('--limit', o.limit);
        const config = await configFromFlags(o);
        // default: the config's own held-out set
        const fromConfig = o.benchmarks || o.file ? null : config.evalSet;
        const benchmarks = o.benchmarks
          ? o.benchmarks
              .split(',')
              .map((b) => b.trim())
              .filter(Boolean)
          : fromConfig && fromConfig !== 'file'
            ? [fromConfig]
            : [];
        const files = o.file ?? (fromConfig === 'file' ? [config.evalFile] : []);
        await runEval({
          config,
          backend: o.backend,
          runtime,
          benchmarks,
          files,
          limit,
          ...(o.checkpoint ? { checkpoint: o.checkpoint } : {}),
          ...(o.out ? { out: o.out } : {}),
          progress: !o.quiet && process.stderr.isTTY,
          ...(o.onnx !== undefined ? { onnx: o.onnx } : {}),
          ...(o.frozenModel !== undefined ? { frozenModel: o.frozenModel } : {}),
          ...(o.quiet ? {} : { log: (line: string) => process.stderr.write(line + '\n') }),
          // each result is printed as soon as it is known: a failure to write --out files later loses nothing
          onResult: (r) =>
            process.stdout.write(
              `${r.benchmark.padEnd(16)} n=${String(r.n).padStart(5)}  pass@1 ${(100 * r.accuracy).toFixed(2)}%\n`,
            ),
        });
      },
    );

  configOptions(
    program
      .command('plan')
      .description(
        'memory a config needs (weights, lora, optimizer, kv_cache, activations, peak) and whether it fits, before any download',
      ),
  )
    .addOption(new Option('--backend <kind>', 'backend to plan for').choices([...BACKEND_KINDS]).default('wasm'))
    .option(
      '--memory <bytes>',
      "bytes the device allows (e.g. 8GiB); default: the wasm backend's 4 GiB, the cpu backend's 8 GiB; webgpu needs it",
    )
    .addOption(
      new Option('--weight-dtype <dtype>', 'storage of the frozen base weights')
        .choices([...WEIGHT_DTYPES])
        .default('f32'),
    )
    .option(
      '--binding-limit <bytes>',
      "webgpu: the adapter's maxStorageBufferBindingSize (e.g. 1GiB); default the WebGPU spec's 128 MiB",
    )
    .option('--json', 'print one JSON object (parameters, bytes, fits, suggestion, bindings, ...)')
    .action(
      async (
        o: ConfigFlags & {
          backend: BackendKind;
          memory?: string;
          weightDtype: WeightDtype;
          bindingLimit?: string;
          json?: boolean;
        },
      ) => {
        const config = await configFromFlags(o);
        const plan = await runPlan({
          config,
          backend: o.backend,
          weightDtype: o.weightDtype,
          ...(o.memory !== undefined ? { memoryBytes: bytesFlag('--memory', o.memory) } : {}),
          ...(o.bindingLimit !== undefined ? { bindingBytes: bytesFlag('--binding-limit', o.bindingLimit) } : {}),
        });
        process.stdout.write(o.json ? JSON.stringify(plan) + '\n' : formatPlan(plan));
      },
    );

  configOptions(
    program
      .command('sweep')
      .description(
        'a grid of config overrides x seeds; writes summary.csv (per run and per config over seeds) and curves.svg',
      ),
  )
    .requiredOption(
      '--grid <json|file>',
      'JSON object field -> list of values, e.g. {"ratio":["token","turn-geometric"]}',
    )
    .option('--seeds <list>', 'comma-separated seeds', '0')
    .option('--out <dir>', 'sweep folder', 'runs/sweep')
    .addOption(backendOption())
    .addOption(simdOption())
    .addOption(threadsOption())
    .addOption(weightDtypeOption())
    .addOption(dataDirOption())
    .option('--quiet', 'no per-step lines')
    .action(
      async (
        o: ConfigFlags &
          RuntimeFlags & { grid: string; seeds: string; out: string; backend: BackendKind; quiet?: boolean },
      ) => {
        const runtime = runtimeOf(o);
        const seeds = intListFlag('--seeds', o.seeds);
        const base = await configFromFlags(o);
        const text = existsSync(o.grid) ? await readText(o.grid) : o.grid;
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch (e) {
          throw new Error(`--grid: not JSON (${(e as Error).message})`, { cause: e });
        }
        const rows = await runSweep({
          base,
          grid: parseGrid(json, '--grid'),
          seeds,
          out: o.out,
          backend: o.backend,
          runtime,
          progress: o.quiet ? 'none' : 'lines',
        });
        process.stdout.write(`${o.out}/summary.csv: ${rows.length} runs\n`);
      },
    );

  program
    .command('verify')
    .description('check answers: reads {"gold", "pred"} lines, writes {verdict, extracted} lines in order')
    .requiredOption('--in <file>', 'input JSONL')
    .option('--out <file>', 'output JSONL (default: stdout)')
    .option(
      '--limit-ms <ms>',
      'hard wall-clock limit of one check; past it the verdict is false, reason "timeout"',
      '3000',
    )
    .action(async (o: { in: string; out?: string; limitMs: string }) => {
      // a timer waits at most 2^31 - 1 ms; a longer limit would fire at once and time every check out
      const limitMs = intFlag('--limit-ms', o.limitMs, { min: 1, max: MAX_TIMER_MS });
      const s = await runVerify(o.in, o.out, { limitMs });
      process.stderr.write(`${s.correct}/${s.total} correct\n`);
    });

  program
    .command('doctor')
    .description(
      'GPU self-test: adapter, limits, features, every kernel class against the shipped golden fixtures with the ' +
        "engine's default kernels, and a speed probe; exit status 2 when a check fails",
    )
    .addOption(new Option('--backend <kind>', 'the backend to check').choices(['webgpu']).makeOptionMandatory())
    .option('--json', 'print one JSON object (docs/backends.md, "GPU self-test")')
    .option('--fixtures <dir>', 'a folder of golden fixture folders (default: public/gpu-check)')
    .option('--no-speed', 'skip the speed probe')
    .option('--quiet', 'no progress lines')
    .action(async (o: { json?: boolean; fixtures?: string; speed: boolean; quiet?: boolean }) => {
      const report = await runDoctor(o);
      if (!report.ok) process.exitCode = 2;
    });

  configOptions(program.command('export').description('export a config to another trainer'))
    .option('--verl', 'the ReMA verl fork (ziyuwan/ReMA-public)')
    .addOption(
      new Option(
        '--format <form>',
        "yaml: keys to merge into the fork's ppo_trainer.yaml; overrides: the Hydra command line (python -m verl.rema_trainer.main_ppo key=value ...)",
      )
        .choices(['yaml', 'overrides'])
        .default('yaml'),
    )
    .option('--out <file>', 'write it here (default: stdout)')
    .action(async (o: ConfigFlags & { verl?: boolean; format: 'yaml' | 'overrides'; out?: string }) => {
      if (!o.verl) throw new Error('export: choose a target (--verl)');
      const config = await configFromFlags(o);
      const e = exportVerl(config);
      const text = o.format === 'overrides' ? e.command : e.yaml;
      if (o.out) await writeFile(o.out, text);
      else process.stdout.write(text);
      if (e.notPorted.length > 0)
        process.stderr.write(`knobs that do not port:\n${e.notPorted.map((n) => `  - ${n}`).join('\n')}\n`);
    });
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    process.stderr.write(`rema: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = isDeviceLost(e) ? DEVICE_LOST_EXIT : 1;
  }
}

const invokedDirectly = process.argv[1] !== undefined && /(?:^|[\\/])main\.ts$/.test(process.argv[1]);
if (invokedDirectly) await main(process.argv);
