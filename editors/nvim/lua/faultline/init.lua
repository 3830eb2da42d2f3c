-- faultline for Neovim: starts `faultline serve` for Go buffers (one server
-- per module root, the nearest go.mod), colours suspicious lines by score,
-- and fills the quickfix list from the server's ranking.
local config = require("faultline.config")
local explain = require("faultline.explain")
local highlight = require("faultline.highlight")
local ranking = require("faultline.ranking")
local trust = require("faultline.trust")

local uv = vim.uv or vim.loop

local M = {}

-- Plugin state, reset by setup(): the effective configuration, the last
-- ranking and status each server sent, keyed by client id.
local state = {
  cfg = nil,
  rankings = {},
  statuses = {},
  roots = {}, -- module root -> client id (Neovim 0.7 path only)
  trusted = {}, -- module root -> what vim.secure said, asked once per server
  warned = {},
}

local has = function(feature)
  return vim.fn.has(feature) == 1
end

local function notify(msg, level)
  vim.schedule(function()
    vim.notify("faultline: " .. msg, level or vim.log.levels.INFO)
  end)
end

-- Method-call syntax became the documented form in 0.11; older releases
-- only have the field form.
local function client_request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if has("nvim-0.11") then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function get_clients()
  local all
  if vim.lsp.get_clients then
    all = vim.lsp.get_clients({ name = "faultline" })
  else
    all = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, client in ipairs(all) do
    if client.name == "faultline" then
      table.insert(out, client)
    end
  end
  return out
end

local function realpath(path)
  return (uv.fs_realpath(path)) or path
end

-- find_root returns the directory of the nearest go.mod above the buffer's
-- file, or nil when the buffer is not inside a Go module.
function M.find_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then
    return nil
  end
  local dir = vim.fn.fnamemodify(name, ":p:h")
  while dir and dir ~= "" do
    if uv.fs_stat(dir .. "/go.mod") then
      return realpath(dir)
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

local function in_root(path, root)
  return root ~= nil and (path == root or path:sub(1, #root + 1) == root .. "/")
end

-- clients_for returns the faultline clients serving bufnr's module, or all
-- faultline clients when the buffer belongs to none.
local function clients_for(bufnr)
  local root = M.find_root(bufnr)
  local all = get_clients()
  if root then
    local matching = {}
    for _, client in ipairs(all) do
      if client.config.root_dir and realpath(client.config.root_dir) == root then
        table.insert(matching, client)
      end
    end
    if #matching > 0 then
      return matching
    end
  end
  return all
end

-- paint applies the cached ranking of client_id to every loaded buffer of
-- its module. Returns the number of extmarks placed.
local function paint(client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local result = state.rankings[client_id]
  if not client or not state.cfg or not state.cfg.highlight then
    return 0
  end
  local root = client.config.root_dir and realpath(client.config.root_dir)
  local by_file = {}
  local max_score = 0
  if result and type(result.lines) == "table" then
    max_score = ranking.max_score(result.lines)
    for _, entry in ipairs(result.lines) do
      local fname = ranking.filename(entry, root)
      -- The ranking lists every covered line; only the top ones are coloured.
      if fname and (entry.rank or math.huge) <= state.cfg.top then
        fname = realpath(fname)
        by_file[fname] = by_file[fname] or {}
        table.insert(by_file[fname], entry)
      end
    end
  end
  local placed = 0
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(bufnr)
    if vim.api.nvim_buf_is_loaded(bufnr) and name ~= "" then
      local path = realpath(name)
      if in_root(path, root) then
        placed = placed + highlight.apply(bufnr, by_file[path] or {}, max_score, result and result.formula, state.cfg)
      end
    end
  end
  return placed
end

-- fetch requests faultline/ranking from client, caches and paints it, then
-- calls done(err, result) if given.
local function fetch(client, done)
  client_request(client, "faultline/ranking", vim.empty_dict(), function(err, result)
    if err then
      if done then
        done(err, nil)
      else
        notify("ranking request failed: " .. (err.message or vim.inspect(err)), vim.log.levels.WARN)
      end
      return
    end
    state.rankings[client.id] = result
    paint(client.id)
    if done then
      done(nil, result)
    end
  end)
end

local function fire_user_event(pattern)
  if vim.api.nvim_exec_autocmds then
    pcall(vim.api.nvim_exec_autocmds, "User", { pattern = pattern, modeline = false })
  end
end

local handlers = {
  ["faultline/rankingChanged"] = function(_, _, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client then
      fetch(client)
    end
    fire_user_event("FaultlineRankingChanged")
  end,
  ["faultline/status"] = function(_, result, ctx)
    state.statuses[ctx.client_id] = result
    if type(result) == "table" and result.state == "error" and result.message then
      notify(result.message, vim.log.levels.WARN)
    end
    fire_user_event("FaultlineStatus")
    vim.schedule(function()
      vim.cmd("redrawstatus!")
    end)
  end,
}

local function on_attach(client, bufnr)
  if state.cfg.inlay_hints and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
  if state.rankings[client.id] then
    paint(client.id)
  end
  if state.cfg.on_attach then
    state.cfg.on_attach(client, bufnr)
  end
end

local function on_exit(code, signal, client_id)
  state.rankings[client_id] = nil
  state.statuses[client_id] = nil
  for root, id in pairs(state.roots) do
    if id == client_id then
      state.roots[root] = nil
    end
  end
  vim.schedule(function()
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      highlight.clear(bufnr)
    end
  end)
  if code ~= 0 and signal ~= 15 then
    notify(string.format("server exited with code %d (signal %d); see :LspLog", code, signal), vim.log.levels.ERROR)
  end
end

-- trusted is the plugin's verdict on the module at root: true under the
-- option trust = "always" (the user's own configuration), what vim.secure
-- says under "ask" (nil without vim.secure: the server asks), and nil
-- under "never", which the server's own setting handles.
local function trusted(root)
  if state.cfg.trust == "always" then
    return true
  end
  if state.cfg.trust ~= "ask" then
    return nil
  end
  if state.trusted[root] == nil then
    state.trusted[root] = { trust.stated(root) }
  end
  return state.trusted[root][1]
end

-- client_capabilities are Neovim's own plus the experimental capability
-- that asks the server for faultline/status and faultline/rankingChanged,
-- which it sends only to clients that ask, and states the plugin's verdict
-- on the module at root where it has one: the server takes that verdict
-- from the capabilities only, never from settings.
local function client_capabilities(root)
  return vim.tbl_deep_extend("force", vim.lsp.protocol.make_client_capabilities(), {
    experimental = {
      faultline = { statusNotification = true, rankingChangedNotification = true, trustedWorkspace = trusted(root) },
    },
  })
end

local function client_config(root)
  local settings = config.server_settings(state.cfg)
  return {
    name = "faultline",
    cmd = state.cfg.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = client_capabilities(root),
    init_options = settings,
    settings = { faultline = settings },
    handlers = handlers,
    on_attach = on_attach,
    on_exit = function(code, signal, client_id)
      state.trusted[root] = nil -- a new server asks Neovim again
      on_exit(code, signal, client_id)
    end,
  }
end

-- attach starts (or reuses) the server of bufnr's module and attaches it.
-- Returns the client id, or nil when the buffer is not in a Go module.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not state.cfg then
    error("faultline: call require('faultline').setup() first", 2)
  end
  local root = M.find_root(bufnr)
  if not root then
    return nil
  end
  local exe = state.cfg.cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    if not state.warned[exe] then
      state.warned[exe] = true
      notify(string.format("%q is not executable; set cmd in setup() (see :checkhealth faultline)", exe), vim.log.levels.ERROR)
    end
    return nil
  end
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  local id = state.roots[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      notify("could not start " .. table.concat(state.cfg.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    state.roots[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- setup configures the plugin and starts the server for Go buffers. It may be
-- called again to change options; running servers keep their settings until
-- restarted.
function M.setup(opts)
  state.cfg = config.merge(opts)
  state.trusted = {}
  highlight.define_groups()
  local group = vim.api.nvim_create_augroup("faultline", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = state.cfg.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
    desc = "Start the faultline server for Go buffers",
  })
  vim.api.nvim_create_autocmd("ColorScheme", {
    group = group,
    callback = highlight.define_groups,
    desc = "Restore faultline's default highlight groups",
  })
  vim.api.nvim_create_autocmd("BufWinEnter", {
    group = group,
    pattern = "*.go",
    callback = function(args)
      for _, client in ipairs(clients_for(args.buf)) do
        paint(client.id)
      end
    end,
    desc = "Paint faultline highlights on newly shown Go buffers",
  })
  -- Buffers opened before setup() (lazy loading) get the server now.
  local wanted = {}
  for _, ft in ipairs(state.cfg.filetypes) do
    wanted[ft] = true
  end
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and wanted[vim.bo[bufnr].filetype] then
      M.attach(bufnr)
    end
  end
end

local function require_clients()
  if not state.cfg then
    notify("not set up: call require('faultline').setup()", vim.log.levels.ERROR)
    return nil
  end
  local clients = clients_for(vim.api.nvim_get_current_buf())
  if #clients == 0 then
    notify("no server running; open a Go file inside a module (go.mod)", vim.log.levels.WARN)
    return nil
  end
  return clients
end

-- run asks the server(s) to collect spectra and rank now (faultline.run).
-- The server answers when the run is over; then a summary is echoed and
-- on_done(err, result) is called once per server if given.
function M.run(on_done)
  local clients = require_clients()
  if not clients then
    return
  end
  for _, client in ipairs(clients) do
    client_request(client, "workspace/executeCommand", { command = "faultline.run", arguments = {} }, function(err, result)
      if err then
        notify("faultline.run failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      else
        notify(ranking.run_summary(result))
      end
      if on_done then
        on_done(err, result)
      end
    end)
  end
end

-- show_ranking fills the quickfix list with the current ranking in rank
-- order and refreshes the highlights.
function M.show_ranking()
  local clients = require_clients()
  if not clients then
    return
  end
  local client = clients[1]
  fetch(client, function(err, result)
    if err then
      notify("ranking request failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local root = client.config.root_dir
    local items = ranking.quickfix_items(result, root)
    vim.fn.setqflist({}, " ", { title = ranking.title(result), items = items })
    if #items == 0 then
      notify("no suspicious lines (no failing test yet?)")
      return
    end
    if state.cfg.open_quickfix then
      vim.cmd("copen")
    end
  end)
end

-- explain asks the server to explain a failing leaf test from the git
-- history (faultline.explainTest) and fills the quickfix list with the
-- changes that make it fail and the cause. It takes minutes on a large
-- history; the server reports progress.
function M.explain(test)
  local clients = require_clients()
  if not clients then
    return
  end
  local client = clients[1]
  local args = { uri = vim.uri_from_bufnr(vim.api.nvim_get_current_buf()), test = test }
  notify("explaining " .. test .. " from the git history")
  client_request(client, "workspace/executeCommand", { command = "faultline.explainTest", arguments = { args } }, function(err, result)
    if err then
      notify("faultline.explainTest failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if type(result) == "table" and type(result.message) == "string" and result.message ~= "" then
      notify(test .. ": " .. result.message)
      return
    end
    local items = explain.quickfix_items(result, client.config.root_dir)
    vim.fn.setqflist({}, " ", { title = explain.title(result), items = items })
    if state.cfg.open_quickfix then
      vim.cmd("copen")
    end
  end)
end

-- clear removes the highlights from every buffer.
function M.clear()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    highlight.clear(bufnr)
  end
end

-- status returns the latest faultline/status as text for a statusline,
-- e.g. "faultline: running 37/120 tests, 2 failing" ("" when none).
function M.status(bufnr)
  for _, client in ipairs(clients_for(bufnr or vim.api.nvim_get_current_buf())) do
    local text = ranking.status_text(state.statuses[client.id])
    if text ~= "" then
      return text
    end
  end
  return ""
end

-- last_status returns the latest faultline/status params received for
-- bufnr's module (nil before the first).
function M.last_status(bufnr)
  for _, client in ipairs(clients_for(bufnr or vim.api.nvim_get_current_buf())) do
    if state.statuses[client.id] then
      return state.statuses[client.id]
    end
  end
  return nil
end

-- ranking_of returns the last ranking result received by client_id.
function M.ranking_of(client_id)
  return state.rankings[client_id]
end

-- set changes settings of the running servers, and of those started later,
-- e.g. set({ order = "learned" }). The servers apply them at once
-- (workspace/didChangeConfiguration): a new order or formula reorders what
-- they show from the results they hold, without running the tests again.
function M.set(opts)
  if not state.cfg then
    error("faultline: call require('faultline').setup() first", 2)
  end
  local merged = vim.tbl_extend("force", {}, state.cfg, opts or {})
  state.cfg = config.merge(merged)
  local settings = config.server_settings(state.cfg)
  for _, client in ipairs(get_clients()) do
    client.config.settings = { faultline = settings }
    client_notify(client, "workspace/didChangeConfiguration", { settings = { faultline = settings } })
  end
end

-- config returns the effective configuration (nil before setup()).
function M.config()
  return state.cfg
end

M.clients = get_clients

return M
