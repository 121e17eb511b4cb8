import { CapabilityMicrofrontend, type MicrofrontendProps } from "@plaios/microfrontend";

/** The p-action.action page: the config form and the instance summary. */
export default function PActionCapabilityPage(props: MicrofrontendProps) {
  return <CapabilityMicrofrontend {...props} />;
}
