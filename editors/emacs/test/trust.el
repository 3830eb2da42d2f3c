;;; trust.el --- a repository cannot trust itself through eglot  -*- lexical-binding: t -*-

;; Opens a module whose tests leave a file named ran-tests when they run
;; (server/testdata/marker.txtar), in a repository whose .dir-locals.el
;; sets `eglot-workspace-configuration' to (:faultline (:trust "always")).
;; Eglot declares that variable safe, so Emacs applies it without a prompt
;; and eglot answers workspace/configuration with it. The module is in no
;; trust list. Checks that the tests do not run: the server asks instead
;; (eglot's prompt, answered "Not now"), says that the "always" was
;; ignored, and runs nothing until an explicit faultline.run, which then
;; does run them (so the marker tells). A run is seen as soon as the server
;; starts one: the go command first on PATH logs every invocation, and the
;; server invokes none before consent.
;;
;; Environment: FAULTLINE_BIN, MODULE (the module, inside a git repository,
;; with the .dir-locals.el), GO_LOG (where that go command logs),
;; FAULTLINE_E2E_TIMEOUT (seconds to wait for the explicit run, default
;; 300).

(require 'package)
(package-initialize)
(require 'eglot)
(require 'cl-lib)
(require 'subr-x)

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)

(defvar e2e-bin (or (getenv "FAULTLINE_BIN") (e2e-fail "FAULTLINE_BIN is not set")))
(defvar e2e-module (file-name-as-directory (or (getenv "MODULE") (e2e-fail "MODULE is not set"))))
(defvar e2e-marker (expand-file-name "ran-tests" e2e-module))
(defvar e2e-go-log (or (getenv "GO_LOG") (e2e-fail "GO_LOG is not set")))
(defvar e2e-timeout (string-to-number (or (getenv "FAULTLINE_E2E_TIMEOUT") "300")))

(setq eglot-server-programs `((go-mode ,e2e-bin "serve")))
(setq eglot-sync-connect t
      eglot-connect-timeout 60)

;; The server's questions, answered "Not now" as a user would in the
;; minibuffer, and the messages it shows or logs.
(defvar e2e-questions nil)
(defvar e2e-messages nil)
(advice-add 'completing-read :override
            (lambda (prompt &rest _)
              (push prompt e2e-questions)
              (e2e-log "asked: %s" (car (split-string prompt "\n")))
              "Not now"))
(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (when (memq method '(window/showMessage window/logMessage))
                (push (plist-get params :message) e2e-messages))))

(defun e2e-ran-p ()
  "Whether the server started a go command, or the tests ran."
  (or (file-exists-p e2e-go-log) (file-exists-p e2e-marker)))

(defun e2e-what-ran ()
  (if (file-exists-p e2e-go-log)
      (with-temp-buffer (insert-file-contents e2e-go-log) (format "go %s" (string-trim (buffer-string))))
    "the module's tests"))

(when (e2e-ran-p) (e2e-fail "%s ran before the test" (e2e-what-ran)))
(find-file (expand-file-name "double.go" e2e-module))
(let ((trust (plist-get (plist-get eglot-workspace-configuration :faultline) :trust)))
  (unless (equal trust "always")
    (e2e-fail ".dir-locals.el was not applied: eglot-workspace-configuration is %S"
              eglot-workspace-configuration))
  (e2e-log ".dir-locals.el applied without a prompt: eglot-workspace-configuration %S"
           eglot-workspace-configuration))
(call-interactively #'eglot)
(defvar e2e-server (or (eglot-current-server) (e2e-fail "eglot did not connect")))
(e2e-log "eglot connected to %s" (jsonrpc-name e2e-server))

;; 1. The server asks, or runs the tests: the first must come.
(e2e-wait "question or test run" (lambda () (or e2e-questions (e2e-ran-p))) 120)
(when (e2e-ran-p)
  (e2e-fail "%s ran without consent, granted by .dir-locals.el" (e2e-what-ran)))

;; 2. It says the setting was ignored.
(e2e-wait "message that the trust setting is ignored"
          (lambda () (cl-some (lambda (m) (string-match-p "is ignored" m)) e2e-messages))
          60)
(e2e-log "told: %s" (cl-find-if (lambda (m) (string-match-p "is ignored" m)) e2e-messages))

;; 3. Nothing runs for a while after the settings arrived: pushed on
;; connection, pulled with workspace/configuration, and pushed again now.
(eglot-signal-didChangeConfiguration e2e-server)
(let ((deadline (+ (float-time) 15)))
  (while (< (float-time) deadline)
    (when (e2e-ran-p)
      (e2e-fail "%s ran after \"Not now\", granted by .dir-locals.el" (e2e-what-ran)))
    (accept-process-output nil 0.2)))
(unless (= (length e2e-questions) 1)
  (e2e-fail "asked %d times, want once" (length e2e-questions)))
(e2e-log "no go command ran in 15 s after \"Not now\"")

;; 4. An explicit run is consent, and the marker shows that it ran.
(jsonrpc-request e2e-server :workspace/executeCommand '(:command "faultline.run")
                 :timeout e2e-timeout)
(unless (file-exists-p e2e-marker) (e2e-fail "faultline.run finished but %s is missing" e2e-marker))
(e2e-log "faultline.run ran the tests")

(let ((proc (jsonrpc--process e2e-server)))
  (setf (eglot--shutdown-requested e2e-server) t)
  (jsonrpc-request e2e-server :shutdown nil :timeout 10)
  (jsonrpc-notify e2e-server :exit nil)
  (e2e-wait "server exit" (lambda () (not (process-live-p proc))) 5))

(e2e-log "PASS")
(kill-emacs 0)
;;; trust.el ends here
