import { CapabilityMicrofrontend, type MicrofrontendProps } from "@plaios/microfrontend";

/** The every-kind.action page: the config form and the instance summary. */
export default function EveryKindCapabilityPage(props: MicrofrontendProps) {
  return <CapabilityMicrofrontend {...props} />;
}
