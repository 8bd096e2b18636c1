-- Drives Neovim like a user, headless: waits for the RepoShapley client (started by the README's
-- configuration on FileType python), adds a last line RS_TYPED (set directly, so no indent rule
-- can change it), goes to its end in insert mode, asks for omni completion (<C-x><C-o>, i.e.
-- vim.lsp.omnifunc -> textDocument/completion), accepts the first item (<C-y>), writes the file
-- and quits. What it saw goes to RS_OUT as JSON.
local typed = os.getenv('RS_TYPED')
local out = os.getenv('RS_OUT')
local get_clients = vim.lsp.get_clients or vim.lsp.get_active_clients
local report = {}

local function write_report()
  local file = assert(io.open(out, 'w'))
  file:write(vim.fn.json_encode(report))
  file:close()
end

local function finish(error_message)
  report.error = error_message
  write_report()
  vim.cmd('qall!')
end

local function reposhapley_client()
  for _, client in ipairs(get_clients()) do
    if client.name == 'reposhapley' and client.initialized then return client end
  end
end

if not vim.wait(60000, function() return reposhapley_client() ~= nil end, 50) then
  return finish('the reposhapley client did not initialize within 60 s')
end
local client = reposhapley_client()
local capabilities = client.server_capabilities or {}
report.completion_provider = capabilities.completionProvider ~= nil
report.omnifunc = vim.bo.omnifunc
report.attached = vim.lsp.buf_is_attached(0, client.id)

vim.api.nvim_buf_set_lines(0, -1, -1, false, { typed })
local keys = vim.api.nvim_replace_termcodes('GA<C-x><C-o>', true, false, true)
vim.api.nvim_feedkeys(keys, 'nt', false) -- runs once this script returns, in insert mode

local deadline = vim.loop.now() + 90000
local timer = vim.loop.new_timer()
timer:start(100, 100, vim.schedule_wrap(function()
  -- With the default 'completeopt' a single match is inserted without a menu: ask complete_info().
  local info = vim.fn.complete_info({ 'mode', 'items' })
  if #info.items > 0 then
    timer:stop()
    report.mode = info.mode
    report.items = info.items
    write_report()
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-y><Esc>:write<CR>:qall!<CR>', true, false, true), 'nt', false)
  elseif vim.loop.now() > deadline then
    timer:stop()
    finish('no completion menu within 90 s (mode ' .. vim.fn.mode() .. ')')
  end
end))
