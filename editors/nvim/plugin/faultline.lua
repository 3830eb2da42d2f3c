-- User commands of the faultline plugin. The server starts only after
-- require("faultline").setup{}, so installing the plugin changes nothing
-- until it is configured.
if vim.g.loaded_faultline or vim.fn.has("nvim-0.7") ~= 1 then
  return
end
vim.g.loaded_faultline = true

local command = vim.api.nvim_create_user_command

command("FaultlineRun", function()
  require("faultline").run()
end, { desc = "Run the tests and rank suspicious lines now" })

command("FaultlineRanking", function()
  require("faultline").show_ranking()
end, { desc = "Fill the quickfix list with the suspicious lines in rank order" })

command("FaultlineClear", function()
  require("faultline").clear()
end, { desc = "Remove faultline's highlights" })

command("FaultlineStatus", function()
  local text = require("faultline").status()
  vim.notify(text ~= "" and text or "faultline: no status yet")
end, { desc = "Show what the faultline server is doing" })

command("FaultlineExplain", function(opts)
  require("faultline").explain(opts.args)
end, { nargs = 1, desc = "Explain a failing test from the git history: the changes that make it fail, in the quickfix list" })

command("FaultlineOrder", function(opts)
  require("faultline").set({ order = opts.args })
end, {
  nargs = 1,
  complete = function()
    return { "learned", "combined", "formula" }
  end,
  desc = "Order the suspicious lines: learned (the shipped model, default), combined (verified angelic fixes first) or formula",
})
