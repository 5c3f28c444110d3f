; Hivecrawl's Windows installer, built with NSIS (makensis) on any system:
;   makensis -DVERSION=1.2.3 -DEXE=path\to\hivecrawl.exe -DOUTFILE=dist\hivecrawl-setup.exe installer/windows/hivecrawl.nsi
; scripts/package.sh does this after cross-compiling hivecrawl.exe.
;
; Installs for the current user only (no administrator rights), into
; %LOCALAPPDATA%\Programs\Hivecrawl, with a Start menu entry, an optional
; start at login (the same HKCU Run value that Settings toggles), and an
; uninstaller listed in Apps & features.

; A 64-bit installer (NSIS 3's amd64-unicode stubs, which Debian's nsis
; ships): hivecrawl.exe is amd64, so no Windows that could run it is left
; out, and Debian's wine64, with which the tests run the installer
; (installer/wine_test.go), cannot start a 32-bit program without wine32.
Target amd64-unicode
!ifndef VERSION
  !define VERSION "dev"
!endif
!ifndef EXE
  !error "pass -DEXE=path\to\hivecrawl.exe"
!endif
!ifndef ICONS
  ; makensis works in this script's folder
  !define ICONS "../../assets/icons"
!endif
!ifndef OUTFILE
  !define OUTFILE "hivecrawl-setup.exe"
!endif

!define NAME "Hivecrawl"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Hivecrawl"
!define RUNKEY "Software\Microsoft\Windows\CurrentVersion\Run"

Name "${NAME}"
OutFile "${OUTFILE}"
Icon "${ICONS}/hivecrawl.ico"
UninstallIcon "${ICONS}/hivecrawl.ico"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\Hivecrawl"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
SetCompressor /SOLID lzma

!include "MUI2.nsh"
!define MUI_ICON "${ICONS}/hivecrawl.ico"
!define MUI_UNICON "${ICONS}/hivecrawl.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\hivecrawl.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start Hivecrawl now"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

VIProductVersion "0.0.0.0"
VIAddVersionKey "ProductName" "${NAME}"
VIAddVersionKey "FileDescription" "${NAME} installer"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "Copyright 2026 Hivecrawl developers, Apache License 2.0"

Section "Hivecrawl (required)" SecMain
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "/oname=hivecrawl.exe" "${EXE}"
  File "/oname=hivecrawl.ico" "${ICONS}/hivecrawl.ico"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateDirectory "$SMPROGRAMS\Hivecrawl"
  CreateShortcut "$SMPROGRAMS\Hivecrawl\Hivecrawl.lnk" "$INSTDIR\hivecrawl.exe" "" "$INSTDIR\hivecrawl.ico"
  CreateShortcut "$SMPROGRAMS\Hivecrawl\Uninstall Hivecrawl.lnk" "$INSTDIR\uninstall.exe"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${NAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "Hivecrawl developers"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\hivecrawl.ico"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
SectionEnd

Section "Start Hivecrawl when I log in" SecAutostart
  WriteRegStr HKCU "${RUNKEY}" "Hivecrawl" '"$INSTDIR\hivecrawl.exe"'
SectionEnd

LangString DESC_Main ${LANG_ENGLISH} "The Hivecrawl program, its Start menu entry and its uninstaller."
LangString DESC_Autostart ${LANG_ENGLISH} "Start Hivecrawl in the notification area when you log in. You can change this later in Settings."
!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecMain} $(DESC_Main)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecAutostart} $(DESC_Autostart)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

Section "Uninstall"
  DeleteRegValue HKCU "${RUNKEY}" "Hivecrawl"
  Delete "$SMPROGRAMS\Hivecrawl\Hivecrawl.lnk"
  Delete "$SMPROGRAMS\Hivecrawl\Uninstall Hivecrawl.lnk"
  RMDir "$SMPROGRAMS\Hivecrawl"
  Delete "$INSTDIR\hivecrawl.exe"
  Delete "$INSTDIR\hivecrawl.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTKEY}"
  ; The settings, queue and credits ledger in %APPDATA% and
  ; %LOCALAPPDATA%\hivecrawl stay, so a reinstall keeps the contributor's
  ; credits; delete those folders by hand to remove everything.
SectionEnd
