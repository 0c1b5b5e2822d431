// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// perf script text read by speedscope's own `perf script` reader, folded.
//
// No package of the npm registry or of Debian ships stackcollapse-perf.pl;
// speedscope (pinned in tests/oracles_npm.mk) does ship a maintained reader
// of the same text, the one its "linux perf" import runs. Its release bundle
// is one minified script, so the reader is found in it by what it does, not
// by name: the function holding perf's sample-header regular expression,
// and the generator that splits the text into samples and calls it. Both
// are taken out of the bundle and run as they are.
//
// Usage: node perf_fold.mjs SPEEDSCOPE_BUNDLE PERF_TEXT [--pid|--tid]
// Prints "COMM;root;...;leaf COUNT" lines, sorted by bytes, identical
// stacks merged, as stackcollapse-perf.pl --kernel prints them (--pid:
// "COMM-PID" roots, --tid: "COMM-PID/TID"): one count per sample; frames
// as the reader names them (the symbol, "+0x..." offsets dropped), with
// "_[k]" on kernel frames (the upper half of the address space; an
// inlined frame lies at its caller's address). Samples of another event
// than the first are left out, as speedscope does.
// Exit status: 0; 1 bad usage or unreadable input; 2 the bundle holds no
// reader this script recognizes (another speedscope version).
import fs from 'node:fs'

const HEADER_RE = String.raw`/^(\S.+?)\s+(\d+)(?:\/?(\d+))?\s+/`
const KERNEL_START = 0xffff800000000000n

function fail(status, msg) {
  process.stderr.write(`perf_fold: ${msg}\n`)
  process.exit(status)
}

// The whole "function NAME(...){...}" that starts at AT, by its braces
// (the reader holds no brace in a string or regular expression but those
// of a template's ${...}, which pair up).
function functionAt(src, at) {
  let depth = 0
  for (let i = src.indexOf('{', at); i < src.length; i++) {
    if (src[i] === '{') depth++
    else if (src[i] === '}' && --depth === 0) return src.slice(at, i + 1)
  }
  return null
}

function lastFunctionBefore(src, at) {
  const start = src.lastIndexOf('function', at)
  return start < 0 ? null : { start, text: functionAt(src, start) }
}

function loadReader(bundlePath) {
  const src = fs.readFileSync(bundlePath, 'utf8')
  const at = src.indexOf(HEADER_RE)
  if (at < 0) fail(2, `${bundlePath}: no perf script reader found`)
  const parse = lastFunctionBefore(src, at)
  const parseName = parse && /^function\s+([\w$]+)\(/.exec(parse.text)?.[1]
  if (!parseName || !parse.text.includes(HEADER_RE))
    fail(2, `${bundlePath}: the sample parser was not recognized`)
  // The splitter: a generator over the lines that hands each sample's
  // lines to the parser.
  const splitRe = new RegExp(String.raw`function\*\s*([\w$]+)\(([\w$]+)\)\{[^{}]*` +
    String.raw`splitLines\(\)[^{}]*${parseName.replace(/\$/g, '\\$')}\(`)
  const split = splitRe.exec(src)
  if (!split) fail(2, `${bundlePath}: the sample splitter was not recognized`)
  const splitText = functionAt(src, split.index)
  try {
    const parseFn = new Function(`return (${parse.text})`)()
    return new Function(parseName, `return (${splitText})`)(parseFn)
  } catch (e) {
    fail(2, `${bundlePath}: the reader does not compile here: ${e.message}`)
  }
}

const args = process.argv.slice(2)
if (args.length < 2 || args.length > 3 || (args[2] && !['--pid', '--tid'].includes(args[2])))
  fail(1, 'usage: node perf_fold.mjs SPEEDSCOPE_BUNDLE PERF_TEXT [--pid|--tid]')
const [bundlePath, inputPath, opt] = args
const samples = loadReader(bundlePath)
let text
try {
  text = fs.readFileSync(inputPath, 'utf8')
} catch (e) {
  fail(1, `${inputPath}: ${e.message}`)
}

const folded = new Map()
let eventType = null
// speedscope hands its readers an object whose splitLines() yields lines.
for (const ev of samples({ splitLines: () => text.split('\n') })) {
  if (!ev) continue
  if (eventType !== null && ev.eventType !== eventType) continue
  eventType = ev.eventType
  let root = ev.command
  if (opt === '--pid') root += `-${ev.processID}`
  else if (opt === '--tid') root += `-${ev.processID}/${ev.threadID}`
  const names = [root]
  for (const fr of ev.stack) // root first: the reader reverses perf's order
    names.push(BigInt(fr.address) >= KERNEL_START ? `${fr.symbolName}_[k]` : fr.symbolName)
  const key = names.join(';')
  folded.set(key, (folded.get(key) || 0) + 1)
}
const keys = [...folded.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
process.stdout.write(keys.map(k => `${k} ${folded.get(k)}\n`).join(''))
