-- wrk script for the throughput phase: POST the JSON body in the file named by WRK_BODY_FILE (headers come
-- from wrk's -H options), count the answers that are not 2xx, and print one JSON line at the end that
-- run.mjs parses. wrk's own "Non-2xx or 3xx responses" counts only statuses above 399.
local file = assert(io.open(assert(os.getenv("WRK_BODY_FILE"), "WRK_BODY_FILE not set"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()

local threads = {}
function setup(thread)
  thread:set("non2xx", 0)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
end

function response(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

function done(summary, latency, requests)
  local non2xx_total = 0
  for _, thread in ipairs(threads) do non2xx_total = non2xx_total + thread:get("non2xx") end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, non2xx_total, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
