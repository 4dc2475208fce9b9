#!/usr/bin/env bash
set -euo pipefail
input=$(cat)
text=$(printf '%s' "$input" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const v=JSON.parse(s);process.stdout.write(typeof v?.text==="string"?v.text:s)}catch{process.stdout.write(s)}})')
lines=$(printf '%s' "$text" | wc -l | tr -d ' ')
words=$(printf '%s' "$text" | wc -w | tr -d ' ')
chars=$(printf '%s' "$text" | wc -m | tr -d ' ')
printf '{"lines":%s,"words":%s,"characters":%s}\n' "$lines" "$words" "$chars"
