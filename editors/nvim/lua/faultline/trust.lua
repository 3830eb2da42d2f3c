-- Workspace trust: what Neovim's own trust (vim.secure, Neovim 0.9 and
-- later) says of a module, sent to the server in the client capabilities
-- (experimental.faultline.trustedWorkspace). Without vim.secure the plugin
-- says nothing and the server asks itself (window/showMessageRequest)
-- before running any test.
local M = {}

-- subject is what Neovim is asked to trust for the module at root: the
-- directory where Neovim trusts directories by name (0.11.2 and later),
-- else go.mod by content, which stands for its module.
local function subject(root, has)
  if has("nvim-0.11.2") then
    return root
  end
  return root .. "/go.mod"
end

-- stated returns true or false when vim.secure decides for the module at
-- root, prompting the user the first time as |:trust| does, and nil when
-- this Neovim has no vim.secure. secure and has default to vim.secure and
-- vim.fn.has; tests pass their own.
function M.stated(root, secure, has)
  secure = secure or vim.secure
  has = has or function(feature)
    return vim.fn.has(feature) == 1
  end
  if type(secure) ~= "table" or type(secure.read) ~= "function" then
    return nil
  end
  local ok, result = pcall(secure.read, subject(root, has))
  return ok and result ~= nil and result ~= false
end

return M
