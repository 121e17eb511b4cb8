// Answers for semver_test.go from the real node-semver (pinned in testdata/node):
// reads {versions, ranges} as JSON on stdin, writes the verdicts as JSON on stdout.
'use strict'
const path = require('path')
const semver = require(path.join(process.argv[2], 'semver'))

let input = ''
process.stdin.on('data', (d) => { input += d })
process.stdin.on('end', () => {
  const { versions, ranges } = JSON.parse(input)
  const parsed = versions.map((v) => {
    try { return new semver.SemVer(v) } catch { return null }
  })
  const out = {
    versions: versions.map((v, i) => (parsed[i] ? parsed[i].version : null)),
    compare: parsed.map((a) => parsed.map((b) => (a && b ? a.compare(b) : 0))),
    ranges: ranges.map((r) => {
      let range
      try { range = new semver.Range(r) } catch { return null }
      const min = semver.minVersion(range)
      return {
        desugared: range.range,
        min: min ? min.version : null,
        contains: parsed.map((v) => (v ? range.test(v) : false)),
      }
    }),
  }
  process.stdout.write(JSON.stringify(out))
})
