for s in small big; do timeout 60 python3 eval.py --tasks devdata/rlsize/$s.jsonl --policy teacher --device cuda --workers 8 --out /tmp/e_$s --baseline eager --time-budget-s 1 --baseline-cache /tmp/bc.json > /tmp/e_$s.log 2>&1; echo "$s rc $?"; tail -1 /tmp/e_$s.log | cut -c1-200; cp /tmp/e_$s/results.jsonl $OUT/$s.jsonl; done; python3 -c "
import json,statistics as st
for s in ('small','big'):
    R=[json.loads(l) for l in open('/tmp/e_'+s+'/results.jsonl')]
    ok=[r for r in R if r['correct']]
    m=lambda k:round(st.median([r[k] for r in ok if r.get(k)]),4) if ok else None
    t=[r['verdict']['timings'] for r in ok]
    v=lambda k:round(st.median([x.get(k,0) for x in t]),3) if t else None
    print(s,len(R),'correct',len(ok),'ref_ms',m('ref_ms'),'cand_ms',m('runtime_ms'),'verify_s',v('verify_s'),'time_s',v('time_s'),'lock',v('lock_wait_s'))
"
