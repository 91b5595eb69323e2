//! The Lua scripts the cluster backend runs on each master: one per master per round trip, so
//! that what a master answers (or applies) is atomic on that master. They are flagged
//! `allow-cross-slot-keys` (Redis 7): their keys lie in many slots, all served by the master.

/// The adjacency of one node in one direction (docs/FORMAT.md, "On a Redis Cluster"), as Lua
/// functions the scripts below share: the hash `K` while it holds at most [`CHUNK`] fields;
/// past that, `N` chunk hashes `K:0` … `K:N-1` (`N` a power of two, in the string `K:n`), a
/// field in chunk `hash(field) mod N` (`hash`: `h = (31 h + byte) mod 65521` over the field's
/// bytes). A chunk that outgrows [`CHUNK`] doubles `N` (fields redistributed, at most 32,768
/// chunks). Every key shares `K`'s hash tag, so one script still reads a node's edges; no
/// hash grows past a few hundred fields, so each stays a compact listpack and no single
/// command's work grows with a hub's degree.
macro_rules! adjacency_lua {
    () => {
        r#"
local CHUNK = 128
local MAX_CHUNKS = 32768
local function adj_n(k)
  return tonumber(redis.call('GET', k .. ':n') or '0')
end
local function adj_hash(f)
  local h = 0
  for i = 1, #f do h = (h * 31 + string.byte(f, i)) % 65521 end
  return h
end
local function adj_key(k, f, n)
  if n == 0 then return k end
  return k .. ':' .. (adj_hash(f) % n)
end
local function adj_get(k, f)
  return redis.call('HGET', adj_key(k, f, adj_n(k)), f)
end
local function adj_all(k)
  local n = adj_n(k)
  if n == 0 then return redis.call('HGETALL', k) end
  local out = {}
  for i = 0, n - 1 do
    local part = redis.call('HGETALL', k .. ':' .. i)
    for j = 1, #part do out[#out + 1] = part[j] end
  end
  return out
end
local function adj_put(k, n, fv)
  local by, keys = {}, {}
  for i = 1, #fv, 2 do
    local key = adj_key(k, fv[i], n)
    local t = by[key]
    if not t then t = {}; by[key] = t; keys[#keys + 1] = key end
    t[#t + 1] = fv[i]
    t[#t + 1] = fv[i + 1]
  end
  for _, key in ipairs(keys) do
    local t = by[key]
    for s = 1, #t, 1000 do
      redis.call('HSET', key, unpack(t, s, math.min(s + 999, #t)))
    end
  end
  return keys
end
local function adj_len(k, n)
  if n == 0 then return redis.call('HLEN', k) end
  local total = 0
  for i = 0, n - 1 do total = total + redis.call('HLEN', k .. ':' .. i) end
  return total
end
local function adj_split(k, n, total)
  local m = math.max(2, n * 2)
  while total > m * CHUNK / 2 and m < MAX_CHUNKS do m = m * 2 end
  local all = adj_all(k)
  if n == 0 then
    redis.call('DEL', k)
  else
    for i = 0, n - 1 do redis.call('DEL', k .. ':' .. i) end
  end
  redis.call('SET', k .. ':n', m)
  adj_put(k, m, all)
  return m
end
local function adj_set(k, fv)
  local n = adj_n(k)
  if n == 0 and #fv > 2 * CHUNK then
    n = adj_split(k, 0, redis.call('HLEN', k) + #fv / 2)
  end
  for _, key in ipairs(adj_put(k, n, fv)) do
    if n < MAX_CHUNKS and redis.call('HLEN', key) > CHUNK then
      adj_split(k, n, adj_len(k, n))
      return
    end
  end
end
local function adj_del(k, f)
  redis.call('HDEL', adj_key(k, f, adj_n(k)), f)
end
"#
    };
}

/// Fields per adjacency hash or chunk before it is split (the `CHUNK` of `adjacency_lua`,
/// Redis's default `hash-max-listpack-entries`).
pub(crate) const CHUNK: usize = 128;

/// Reads on one master, atomically with its head (the last commit that started applying there).
/// `KEYS[1]` is the head key (the only declared key: it routes the script to its master; the
/// others, in other slots the master serves, are in `ARGV`, which `allow-cross-slot-keys`
/// permits). Then each op with its keys and arguments in order: `g key`: GET; `f key field`:
/// HGET; `e key field`: an edge's field of adjacency `key`; `a key`: every field of adjacency
/// `key` (all its chunks) and its value as one string, per field its length (u16) and the
/// value's (u32), big-endian, then both (decoded by `read::packed_entries`); `r zset hash min max limit`: the members in the lexical range and
/// their values, as `{members, values}`; `R …`: the same in descending order. Returns
/// `{head, result1, result2, …}`.
pub(crate) const READ: &str = concat!(
    "#!lua flags=no-writes,allow-cross-slot-keys",
    adjacency_lua!(),
    r#"
local out = {redis.call('GET', KEYS[1]) or false}
local a = 1
while a <= #ARGV do
  local code = ARGV[a]
  if code == 'g' then
    out[#out + 1] = redis.call('GET', ARGV[a + 1]) or false
    a = a + 2
  elseif code == 'f' then
    out[#out + 1] = redis.call('HGET', ARGV[a + 1], ARGV[a + 2]) or false
    a = a + 3
  elseif code == 'e' then
    out[#out + 1] = adj_get(ARGV[a + 1], ARGV[a + 2]) or false
    a = a + 3
  elseif code == 'a' then
    -- one string, not 2n replies: the client decodes one value instead of one per field
    local all, parts = adj_all(ARGV[a + 1]), {}
    for i = 1, #all, 2 do
      parts[#parts + 1] = struct.pack('>I2I4', #all[i], #all[i + 1])
      parts[#parts + 1] = all[i]
      parts[#parts + 1] = all[i + 1]
    end
    out[#out + 1] = table.concat(parts)
    a = a + 2
  elseif code == 'r' or code == 'R' then
    local members
    if code == 'r' then
      members = redis.call('ZRANGEBYLEX', ARGV[a + 1], ARGV[a + 3], ARGV[a + 4], 'LIMIT', 0, tonumber(ARGV[a + 5]))
    else
      members = redis.call('ZREVRANGEBYLEX', ARGV[a + 1], ARGV[a + 4], ARGV[a + 3], 'LIMIT', 0, tonumber(ARGV[a + 5]))
    end
    local values = {}
    if #members > 0 then values = redis.call('HMGET', ARGV[a + 2], unpack(members)) end
    for i = 1, #values do values[i] = values[i] or '' end
    out[#out + 1] = {members, values}
    a = a + 6
  else
    return redis.error_reply('cairn: unknown read op ' .. tostring(code))
  end
end
return out
"#
);

/// Applies one commit's writes on one master, atomically with setting its head. `KEYS[1]` is
/// the head key (as for [`READ`]), `ARGV[1]` the commit; then each op: `s key value`: SET;
/// `d key`: DEL; `H key field value`: put an edge's field in adjacency `key`; `D key field`:
/// remove it; `Z zset hash member value`:
/// add to an ordered group; `X zset hash member`: remove.
pub(crate) const APPLY: &str = concat!(
    "#!lua flags=allow-cross-slot-keys",
    adjacency_lua!(),
    r#"
redis.call('SET', KEYS[1], ARGV[1])
local a = 2
while a <= #ARGV do
  local code = ARGV[a]
  if code == 's' then
    redis.call('SET', ARGV[a + 1], ARGV[a + 2])
    a = a + 3
  elseif code == 'd' then
    redis.call('DEL', ARGV[a + 1])
    a = a + 2
  elseif code == 'H' then
    adj_set(ARGV[a + 1], {ARGV[a + 2], ARGV[a + 3]})
    a = a + 4
  elseif code == 'D' then
    adj_del(ARGV[a + 1], ARGV[a + 2])
    a = a + 3
  elseif code == 'Z' then
    redis.call('ZADD', ARGV[a + 1], 0, ARGV[a + 3])
    redis.call('HSET', ARGV[a + 2], ARGV[a + 3], ARGV[a + 4])
    a = a + 5
  elseif code == 'X' then
    redis.call('ZREM', ARGV[a + 1], ARGV[a + 3])
    redis.call('HDEL', ARGV[a + 2], ARGV[a + 3])
    a = a + 4
  else
    return redis.error_reply('cairn: unknown write op ' .. tostring(code))
  end
end
return 1
"#
);

/// Adds fields to one adjacency (a bulk part's edges of a node that may be chunked, or shared
/// with the part before or after): `KEYS[1]` the adjacency key, `ARGV` field, value, field,
/// value, …
pub(crate) const ADJ_ADD: &str = concat!(
    "#!lua",
    adjacency_lua!(),
    r#"
adj_set(KEYS[1], ARGV)
return 1
"#
);

/// Writes a commit record to the log while the writer holds its lease: `KEYS` = lease, pending,
/// record; `ARGV` = lease token, commit, record bytes, lease milliseconds.
pub(crate) const LOG: &str = r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('CAIRNLEASE this process no longer holds the writer lease')
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[3], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2])
return 1
"#;

/// Marks a commit committed: `KEYS` = seq, pending, a record to trim; `ARGV` = the commit.
pub(crate) const FINISH: &str = r#"
redis.call('SET', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3])
return 1
"#;

/// Renews the writer lease if this process holds it: `KEYS` = lease; `ARGV` = token, ms.
pub(crate) const RENEW: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"#;

/// Gives the writer lease up if this process holds it: `KEYS` = lease; `ARGV` = token.
pub(crate) const RELEASE: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"#;
